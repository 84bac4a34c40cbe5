/**
 * Loading a 1.0.x document (`document.dsl: 1.x`): the 1.0.3 JSON schema (./schema.ts), then
 * the rules the schema cannot say (./semantic.ts), then likely mistakes (./lint.ts, warnings), located `file:line:col` through the same
 * source map as 0.8 documents. The result keeps the document as written (see ./model.ts).
 */
import type { Reporter } from '../findings';
import { isObj, type Obj } from '../v08/walk';
import { V1_KIND, type V1Definition, type WorkflowDocument } from '../../common/model-v1';
import { validateV1Schema } from './schema';
import { checkV1Semantics } from './semantic';
import { lintV1 } from './lint';

/** True when the document is a 1.x document (it has `document`, the 1.0 header). */
export function isV1Document(value: unknown): value is Obj {
  return isObj(value) && isObj(value.document) && value.states === undefined;
}

/** Validates a 1.x document; returns the definition when it has no error. */
export async function loadV1(doc: Obj, rep: Reporter): Promise<V1Definition | undefined> {
  const dsl = String(doc.document.dsl ?? '');
  if (dsl && !/^1\.\d+\.\d+/.test(dsl)) {
    rep.error('/document/dsl', `dsl '${dsl}' is not supported`, "supported: 1.0.x (and later 1.x), '0.8' (specVersion), '0.9' (CWM), the v0.1 draft");
    return undefined;
  }
  for (const issue of validateV1Schema(doc)) rep.error(issue.pointer, issue.message, issue.hint, { key: issue.key });
  if (/^1\.(?!0\.)/.test(dsl)) rep.warn('/document/dsl', `dsl '${dsl}' is newer than 1.0.x: read as 1.0.3`);
  // required, not import()ed: a definition-checking thread (src/definitions/check-apart.ts) has
  // tsx's CommonJS hook only, and an ESM import of a folder fails there.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  await (require('../../expr') as typeof import('../../expr')).initExpressions();
  checkV1Semantics(doc, rep);
  lintV1(doc, rep);
  if (rep.hasErrors) return undefined;
  const h = doc.document as WorkflowDocument['document'];
  return {
    kind: V1_KIND,
    id: `${h.namespace}/${h.name}`,
    version: String(h.version),
    name: h.title ?? h.name,
    namespace: h.namespace,
    dsl,
    workflow: doc as WorkflowDocument,
  };
}
