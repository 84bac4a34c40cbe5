/**
 * Loading workflow definitions (Node side): parse (JSON/YAML, with positions), detect the
 * dialect (0.8, CWM 0.9, the v0.1 draft) and translate it, resolve external resources,
 * accept known deviations with warnings, validate against the 0.8 JSON schema and the
 * semantic rules, warn about likely mistakes (v08/lint.ts, v1/lint.ts), and normalize into the canonical model (./model.ts).
 *
 * `definition` is set only when there is no error (with `strict`, warnings count as errors).
 */
import * as path from 'node:path';
import type { DataSchemaDef, Definition, Dialect, Json, WorkflowDef } from '../common/model';
import { formatFinding, Reporter, type Finding } from './findings';
import { applyLeniency, schemaView } from './v08/lenient';
import { normalize } from './v08/normalize';
import { Resolver } from './resolve';
import { validateSchema } from './v08/schema';
import { checkSemantics } from './v08/semantic';
import { lint08 } from './v08/lint';
import { SourceDoc, SourceMap } from './source';
import { isV01, translateV01 } from './v01/translate';
import { kogitoArguments, translateJsonPathDocument } from './v08/kogito';
import { isObj, type Obj } from './v08/walk';
import { MAX_NESTING, nestsDeeperThan } from './nesting';
import { isV1Document, loadV1 } from './v1/load';
import { isV1Definition } from '../common/model-v1';
import { apiDocumentKind, apiDocumentName, type ApiDocumentKind } from './api-documents';

export type { Finding } from './findings';
export { apiDocumentKind, type ApiDocumentKind } from './api-documents';
export { formatFinding } from './findings';
export { parseDuration, isDuration, durationProblem } from '../common/duration';

export interface LoadResult {
  definition?: WorkflowDef;
  problems: Finding[];
  source: string /* file or '<inline>' */;
  /** Set when the document is an API or schema document (./api-documents.ts), not a definition: a folder scan leaves it alone. */
  apiDocument?: ApiDocumentKind;
}

/** What {@link loadAnyDefinition} returns: a 0.8-family definition, or a 1.0 one (`kind: 'sw-1.0'`, see ./v1/model.ts). */
export interface AnyLoadResult extends Omit<LoadResult, 'definition'> {
  definition?: Definition;
}

export interface LoadOptions {
  /** Directory (or URL) relative references resolve against. Default: the file's directory, or cwd. */
  baseDir?: string;
  /** Name used in messages (default: the file path, or '<inline>'). */
  source?: string;
  /** Warnings become errors. */
  strict?: boolean;
  /** More directories searched for relative references (after baseDir). */
  includeDirs?: string[];
  /** Ids of workflows subFlowRef/continueAs may name; when given, others are errors. */
  knownWorkflows?: string[];
}

/** {@link loadAnyDefinitionFile} for 0.8-family documents only (a 1.0 document is an error). */
export async function loadDefinitionFile(file: string, opts: Omit<LoadOptions, 'source'> & { source?: string } = {}): Promise<LoadResult> {
  return only08(await loadAnyDefinitionFile(file, opts));
}

/** {@link loadAnyDefinition} for 0.8-family documents only (a 1.0 document is an error). */
export async function loadDefinition(doc: unknown, opts: LoadOptions = {}): Promise<LoadResult> {
  return only08(await loadAnyDefinition(doc, opts));
}

function only08(r: AnyLoadResult): LoadResult {
  if (!r.definition || !isV1Definition(r.definition)) return r as LoadResult;
  return { source: r.source, problems: [...r.problems, { severity: 'error', message: 'a Serverless Workflow 1.0 document where a 0.8-family definition is expected (load it with loadAnyDefinition)', file: r.source }] };
}

/** The text of `bytes`, or a problem when they are not UTF-8 (JSON and YAML are), placed at the first bad byte. */
function utf8Text(bytes: Buffer, file: string): string | Finding {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes); // ignoreBOM: keep it, as Buffer#toString did
  } catch {
    const text = bytes.toString('utf8');
    const before = text.slice(0, text.indexOf('\uFFFD')).split('\n');
    return { severity: 'error', message: 'not UTF-8 text (JSON and YAML documents are UTF-8)', file, line: before.length, col: before[before.length - 1].length + 1, hint: 'save the file as UTF-8' };
  }
}

/** Loads a definition file (or http(s) URL) of any supported dialect, 0.8-family or 1.0. */
export async function loadAnyDefinitionFile(file: string, opts: Omit<LoadOptions, 'source'> & { source?: string } = {}): Promise<AnyLoadResult> {
  const source = opts.source ?? file;
  let text: string;
  try {
    if (/^https?:\/\//i.test(file)) {
      const res = await fetch(file, { signal: AbortSignal.timeout(10000) });
      if (!res.ok) throw new Error(`HTTP ${res.status} ${res.statusText}`);
      text = await res.text();
    } else {
      const bytes = await (await import('node:fs/promises')).readFile(file);
      const decoded = utf8Text(bytes, source);
      if (typeof decoded !== 'string') return { source, problems: [decoded] };
      text = decoded;
    }
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    return { source, problems: [{ severity: 'error', message: `cannot read definition: ${e.code ?? e.message}`, file: source }] };
  }
  const baseDir = opts.baseDir ?? (/^https?:\/\//i.test(file) ? file.replace(/[^/]*$/, '') : path.dirname(path.resolve(file)));
  return loadAnyDefinition(text, { ...opts, baseDir, source });
}

/** Loads a definition (text, or an already parsed document) of any supported dialect, routed by `document.dsl` (1.0) or `specVersion`. */
export async function loadAnyDefinition(doc: unknown, opts: LoadOptions = {}): Promise<AnyLoadResult> {
  const source = opts.source ?? '<inline>';
  let main: SourceDoc | undefined;
  let value: unknown;
  if (typeof doc === 'string') {
    main = new SourceDoc(source, doc);
    value = main.value;
  } else {
    value = doc;
  }
  const map = new SourceMap(main, source);
  const rep = new Reporter(map);
  if (main) for (const p of main.problems) rep.push(p);
  const finish = (definition?: Definition): AnyLoadResult => {
    let problems = rep.list;
    if (opts.strict) problems = problems.map((p) => (p.severity === 'warning' ? { ...p, severity: 'error' as const, message: `${p.message} (strict)` } : p));
    problems = sortProblems(problems);
    const ok = !problems.some((p) => p.severity === 'error');
    return ok && definition ? { definition, problems, source } : { problems, source };
  };
  if (main?.fatal) return finish();
  // Said as what it is: checked as a definition, it would be "missing required property 'states'".
  const apiDocument = apiDocumentKind(value);
  if (apiDocument) {
    rep.error('', `${apiDocumentName(apiDocument)}, not a workflow definition`, 'a definition refers to it, from a function\'s operation, a call task or a data schema; validate that definition');
    return { ...finish(), apiDocument };
  }
  if (nestsDeeperThan(value)) {
    rep.error('', `the document nests deeper than ${MAX_NESTING} levels`);
    return finish();
  }
  if (!isObj(value)) {
    rep.error('', `a workflow definition must be an object (got ${value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value})`);
    return finish();
  }

  // A 1.0 document (routed by `document.dsl`) has its own loader.
  if (isV1Document(value)) return finish(await loadV1(JSON.parse(JSON.stringify(value)), rep));

  // Dialect.
  let work: Obj = JSON.parse(JSON.stringify(value));
  let dialect: Dialect = '0.8';
  const writtenVersion = work.specVersion;
  if (isV01(work)) {
    dialect = 'v0.1';
    work = translateV01(work, rep, map);
  } else if (String(writtenVersion) === '0.9') {
    dialect = 'cwm-0.9';
    arr(work.functions).forEach((f: unknown) => {
      // CWM: functions are activities of adapters on a worker (type custom).
      if (isObj(f) && f.type === undefined) f.type = 'custom';
    });
  } else if (writtenVersion !== undefined && !/^0\.[78](\.\d+)?$/.test(String(writtenVersion))) {
    rep.error('/specVersion', `specVersion '${writtenVersion}' is not supported`, "supported: '0.8' (and 0.7/Kogito variants), '0.9' (CWM), the v0.1 draft");
    return finish();
  }
  if (/^0\.7/.test(String(writtenVersion))) rep.warn('/specVersion', "specVersion '0.7' read as 0.8");

  // External resources.
  const resolver = new Resolver({ baseDir: opts.baseDir, includeDirs: opts.includeDirs });
  const schemas: { input?: DataSchemaDef; output?: DataSchemaDef } = {};
  const unresolved = new Set<string>();
  await resolveExternals(work, resolver, rep, map, schemas, dialect, unresolved);

  applyLeniency(work, { rep, map, is09: dialect === 'cwm-0.9' });
  const jsonpath = work.expressionLang === 'jsonpath';
  if (jsonpath) translateJsonPathDocument(work, rep);
  await kogitoArguments(work, rep, jsonpath);

  for (const issue of validateSchema(schemaView(work))) rep.error(issue.pointer, issue.message, issue.hint, { key: issue.key });
  await checkSemantics(work, rep, { knownWorkflows: opts.knownWorkflows, unresolved });
  lint08(work, rep);

  if (rep.hasErrors) return finish();
  let definition: WorkflowDef;
  try {
    definition = normalize({
      doc: work,
      dialect,
      specVersion: dialect === 'v0.1' ? '0.1' : writtenVersion === undefined ? '0.8' : String(writtenVersion),
      dataInputSchema: schemas.input,
      dataOutputSchema: schemas.output,
    });
  } catch (err) {
    rep.error('', `internal error while normalizing: ${(err as Error).message}`);
    return finish();
  }
  return finish(definition);
}

function arr(v: unknown): any[] {
  return Array.isArray(v) ? v : [];
}

function sortProblems(list: Finding[]): Finding[] {
  return list
    .map((p, i) => ({ p, i }))
    .sort((a, b) => (a.p.file === b.p.file ? (a.p.line ?? 0) - (b.p.line ?? 0) || (a.p.col ?? 0) - (b.p.col ?? 0) || a.i - b.i : a.i - b.i))
    .map((x) => x.p);
}

const LIST_RESOURCES = ['functions', 'events', 'retries', 'errors', 'auth'] as const;

async function resolveExternals(work: Obj, resolver: Resolver, rep: Reporter, map: SourceMap, schemas: { input?: DataSchemaDef; output?: DataSchemaDef }, dialect: Dialect, unresolved: Set<string>): Promise<void> {
  const load = async (key: string, uri: string, pointer: string) => {
    const r = await resolver.load(uri);
    if (!r.ok) {
      rep.error(pointer, r.message, r.hint);
      return undefined;
    }
    for (const p of r.doc.problems) rep.push(p);
    if (r.doc.fatal) return undefined;
    return r.doc;
  };
  for (const key of LIST_RESOURCES) {
    const v = work[key];
    if (typeof v !== 'string') continue;
    const doc = await load(key, v, `/${key}`);
    if (!doc) {
      delete work[key];
      unresolved.add(key);
      continue;
    }
    const val = doc.value;
    if (Array.isArray(val)) {
      work[key] = val;
      map.mount(`/${key}`, doc, '');
    } else if (isObj(val) && Array.isArray(val[key])) {
      work[key] = val[key];
      map.mount(`/${key}`, doc, `/${key}`);
    } else {
      rep.error(`/${key}`, `"${v}" does not hold ${key} definitions`, `expected a list, or an object with a '${key}' list`);
      delete work[key];
    }
  }
  if (typeof work.secrets === 'string') {
    const uri = work.secrets;
    const doc = await load('secrets', uri, '/secrets');
    const val = doc?.value;
    const list = Array.isArray(val) ? val : isObj(val) && Array.isArray(val.secrets) ? val.secrets : undefined;
    if (doc && list) {
      work.secrets = list;
      map.mount('/secrets', doc, Array.isArray(val) ? '' : '/secrets');
    } else {
      if (doc) rep.error('/secrets', `"${uri}" does not hold a list of secret names`);
      delete work.secrets;
    }
  }
  for (const key of ['constants', 'timeouts'] as const) {
    const v = work[key];
    if (typeof v !== 'string') continue;
    const doc = await load(key, v, `/${key}`);
    const val = doc?.value;
    if (doc && isObj(val)) {
      const inner = key === 'timeouts' && isObj(val.timeouts) ? '/timeouts' : '';
      work[key] = inner ? val.timeouts : val;
      map.mount(`/${key}`, doc, inner);
    } else {
      if (doc) rep.error(`/${key}`, `"${v}" does not hold an object of ${key}`);
      delete work[key];
    }
  }
  for (const [key, slot] of [
    ['dataInputSchema', 'input'],
    ['dataOutputSchema', 'output'],
  ] as const) {
    const v = work[key];
    if (v === undefined) continue;
    let uri: unknown;
    let fail = true;
    let pointer = `/${key}`;
    if (typeof v === 'string') uri = v;
    else if (isObj(v)) {
      uri = v.schema;
      pointer = `/${key}/schema`;
      if (typeof v.failOnValidationErrors === 'boolean') fail = v.failOnValidationErrors;
      else if (v.failOnValidationErrors === 'false' || v.failOnValidationErrors === 'true') fail = v.failOnValidationErrors === 'true';
    } else continue;
    if (isObj(uri)) {
      if (dialect === '0.8') rep.warn(pointer, `${key}.schema is an inline JSON schema (0.9); the 0.8 schema wants a URI`);
      schemas[slot] = { schema: uri as Json, failOnValidationErrors: fail };
      continue;
    }
    if (typeof uri !== 'string') continue; // the schema check reports it
    const doc = await load(key, uri, pointer);
    if (doc && isObj(doc.value)) schemas[slot] = { schema: doc.value as Json, failOnValidationErrors: fail };
    else if (doc) rep.error(pointer, `"${uri}" is not a JSON schema object`);
    if (key === 'dataOutputSchema' && dialect === '0.8') rep.warn(`/${key}`, "'dataOutputSchema' is not part of 0.8 (it is 0.9); accepted");
  }
}

export { formatFinding as format };
export type { WorkflowDef };
