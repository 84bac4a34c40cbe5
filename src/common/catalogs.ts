/**
 * Serverless Workflow 1.0 catalogs and functions referenced by URI, the pure parts (sandbox-safe:
 * no Node modules). A cataloged function is called `name:version@catalog`; its document lives at
 * `<catalog endpoint>/functions/<name>/<version>/function.yaml` (the layout of
 * https://github.com/serverlessworkflow/catalog, which dsl.md "Catalogs" points to). A function by
 * URI is `call: <uri>` (http, https or file), the document at that address. Either document is
 * one 1.0 task (usually with its own `input.schema`/`output.schema`).
 *
 * The interpreter worker fetches these documents when it pins the definition
 * (src/worker/activities/catalogs.ts); the run finds them by their call string (ResolveResult.functions).
 */
import { entryOf, type Task, type TaskList, type V1Definition, type WorkflowDocument } from './model-v1';

/** `name:version@catalog`. */
export interface CatalogRef {
  name: string;
  version: string;
  catalog: string;
}

const CATALOGED = /^(.+):([^:@/]+)@([^@/:]+)$/;
const URI_CALL = /^[a-z][a-z0-9+.-]*:\/\//i;

/** `name:version@catalog` → its parts; undefined for anything else (a built-in call, a use.functions name, a URI). */
export function parseCatalogCall(call: string): CatalogRef | undefined {
  if (URI_CALL.test(call)) return undefined;
  const m = CATALOGED.exec(call);
  return m ? { name: m[1], version: m[2], catalog: m[3] } : undefined;
}

/** A call of a function document by its URI (`scheme://…`). */
export function isUriCall(call: string): boolean {
  return URI_CALL.test(call);
}

/**
 * Whether a call is one the interpreter worker resolves into a function document: a URI, or a
 * cataloged function of a catalog the document defines. `@default` without a `use.catalogs.default`
 * is swflow's own default catalog (adapter activities), not a document.
 */
export function needsDocument(call: string, catalogs: Record<string, unknown> | undefined): boolean {
  if (isUriCall(call)) return true;
  const ref = parseCatalogCall(call);
  if (!ref) return false;
  return ref.catalog !== 'default' || Object.hasOwn(catalogs ?? {}, 'default');
}

/** The calls of a task tree (every nested list, use.functions bodies excluded), in document order. */
export function callsOf(task: Task, out: string[] = []): string[] {
  if (typeof task.call === 'string') out.push(task.call);
  const lists: (TaskList | undefined)[] = [task.do, task.try, task.catch?.do, task.foreach?.do, task.fork?.branches];
  for (const list of lists) for (const item of Array.isArray(list) ? list : []) callsOf(entryOf(item)[1], out);
  return out;
}

/** The calls of a document that name function documents (in its tasks and its use.functions), each once. */
export function documentCalls(doc: WorkflowDocument): string[] {
  const calls: string[] = [];
  for (const item of doc.do ?? []) callsOf(entryOf(item)[1], calls);
  for (const fn of Object.values(doc.use?.functions ?? {})) callsOf(fn, calls);
  return [...new Set(calls.filter((c) => needsDocument(c, doc.use?.catalogs)))];
}

/** {@link documentCalls} of a pinned definition. */
export function definitionCalls(def: V1Definition): string[] {
  return documentCalls(def.workflow);
}

/**
 * A GitHub or GitLab web address as the address of its raw content (dsl.md "File Structure": runtimes
 * resolve the raw, machine-readable documents of catalogs hosted there):
 * - `https://github.com/<owner>/<repo>/tree|blob/<branch>/<path>` → `https://raw.githubusercontent.com/<owner>/<repo>/refs/heads/<branch>/<path>`
 * - `https://github.com/<owner>/<repo>` → `https://raw.githubusercontent.com/<owner>/<repo>/HEAD` (the default branch)
 * - `https://gitlab.com/<group>/<project>/-/tree|blob/<ref>/<path>` → `…/-/raw/<ref>/<path>`
 * Anything else is returned as it is.
 */
export function rawAddress(uri: string): string {
  const gh = /^https?:\/\/(?:www\.)?github\.com\/([^/]+)\/([^/]+?)(?:\.git)?(?:\/(?:tree|blob)\/([^/]+)(\/.*)?)?\/?$/.exec(uri);
  if (gh) {
    const [, owner, repo, branch, path] = gh;
    return `https://raw.githubusercontent.com/${owner}/${repo}/${branch ? `refs/heads/${branch}` : 'HEAD'}${path ?? ''}`;
  }
  const gl = /^(https?:\/\/(?:www\.)?gitlab\.com\/.+?)\/-\/(?:tree|blob)\/(.+)$/.exec(uri);
  if (gl) return `${gl[1]}/-/raw/${gl[2]}`;
  return uri;
}

/** Where a cataloged function's document is: `<root>/functions/<name>/<version>/function.yaml` (root in raw form). */
export function catalogFunctionAddress(root: string, ref: Pick<CatalogRef, 'name' | 'version'>): string {
  const raw = rawAddress(root).replace(/\/+$/, '');
  return `${raw}/functions/${encodeURIComponent(ref.name)}/${encodeURIComponent(ref.version)}/function.yaml`;
}

/** A catalog's endpoint as written: its URI and its authentication policy, if any. */
export function endpointParts(endpoint: unknown): { uri?: string; authentication?: unknown } {
  if (typeof endpoint === 'string') return { uri: endpoint };
  if (endpoint && typeof endpoint === 'object' && !Array.isArray(endpoint)) {
    const e = endpoint as { uri?: unknown; authentication?: unknown };
    return { ...(typeof e.uri === 'string' ? { uri: e.uri } : {}), ...(e.authentication !== undefined ? { authentication: e.authentication } : {}) };
  }
  return {};
}
