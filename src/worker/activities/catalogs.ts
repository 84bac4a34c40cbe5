/**
 * The interpreter worker's side of 1.0 catalogs and functions by URI (feature `v1-catalogs`):
 * when it pins a 1.0 definition (`swflow.resolveDefinition`), it fetches the document of every
 * cataloged function (`name:version@catalog` → `<endpoint>/functions/<name>/<version>/function.yaml`)
 * and every function by URI (`call: <uri>`) the document calls — also those its functions call —,
 * checks each is a valid 1.0 task, and returns them with the definition: they are pinned into the
 * run's history (the local activity's marker), so a catalog that changes never changes a running
 * run, and replays never fetch. Pinning them all at the start, before any task, means a run never
 * stops halfway for a catalog that became unreachable or changed meanwhile; a function that cannot
 * be fetched keeps the run from starting, with a message naming it.
 *
 * Endpoints: `http(s)` (GitHub/GitLab web addresses are read raw, ../dsl/v1/catalogs.ts rawAddress),
 * `file://` URIs (`file://./…` and `file://../…` relative to the definition's file, else to the
 * worker's base folder). A catalog endpoint's `authentication` is a 1.0 policy (inline, `use` of a
 * `use.authentications` policy, or secret-based) served by the adapter SDK's 1.0 authentication
 * (basic, bearer, oauth2, oidc), with `$secrets` from the worker's secret values; the credentials
 * never enter history (only the fetched documents do).
 *
 * Documents are cached per worker: files until they change (mtime and size), HTTP answers for
 * `cacheMs` (keyed by address and credentials, so one workflow's credentials never serve another's).
 */
import { createHash } from 'node:crypto';
import type { Stats } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { resolve as resolvePath } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parse as parseYaml } from 'yaml';
import { errorClass, SwflowError } from '../../common/errors';
import type { Json } from '../../common/model';
import { BoundedMap } from '../../common/bounded-map';
import { callsOf, catalogFunctionAddress, documentCalls, endpointParts, needsDocument, parseCatalogCall, rawAddress, type CatalogRef } from '../../common/catalogs';
import { taskTypeOf, type PinnedFunction, type Task, type V1Definition } from '../../common/model-v1';
import { authenticationHeaders, type TokenSource } from '../../adapter-sdk/authentication';
import { resolveAuth, TokenCache } from '../../adapter-sdk/auth';
import { sendHttp } from '../../adapter-sdk/http';
import { httpFetch } from '../../adapter-sdk/http-client';
import { Redactor } from '../../adapter-sdk/redact';
import { secretNamesIn, type SecretValues } from '../../adapter-sdk/secrets';
import type { FunctionCall } from '../../common/contracts';

export interface CatalogOptions {
  /** Where relative endpoints and function URIs resolve when the definition has no file (e.g. started with StartOptions.definition). Default: the current directory. */
  baseDir?: string;
  /** How long one document fetch may take (default 10 s). */
  timeoutMs?: number;
  /** How long an HTTP document is reused by this worker (default 60 s; 0: never). Files are re-read when they change. */
  cacheMs?: number;
  /** `$secrets` of catalog authentication (default: the environment). */
  secrets?: SecretValues;
}

/** Failure type of a function document that could not be fetched or is not a valid task. */
export const FUNCTION_NOT_RESOLVED = 'FunctionNotResolved';

/** Catalog documents a worker keeps (files and HTTP answers, each): least recently used go first. */
export const CATALOG_CACHE_ENTRIES = 256;

export class FunctionNotResolved extends SwflowError {
  static {
    errorClass(this, FUNCTION_NOT_RESOLVED);
  }

  constructor(
    message: string,
    /** False for what may pass (a network failure, a timeout, a 5xx): the local activity tries again. */
    readonly permanent: boolean,
  ) {
    super(message);
  }
}

/** How many function documents one definition may pin (functions calling functions included). */
const MAX_FUNCTIONS = 200;

const isObj = (v: unknown): v is Record<string, Json> => !!v && typeof v === 'object' && !Array.isArray(v);

interface Fetched {
  text: string;
}

export class CatalogResolver {
  // Bounded (least recently used first): answers are keyed by credentials too, which vary per run.
  private readonly files = new BoundedMap<string, { mtimeMs: number; size: number; text: string }>(CATALOG_CACHE_ENTRIES);
  private readonly answers = new BoundedMap<string, { at: number; text: string }>(CATALOG_CACHE_ENTRIES);
  private readonly tokens = new TokenCache();

  constructor(private readonly opts: CatalogOptions = {}) {}

  /**
   * The function documents `def` calls, by call string. `source`: where the definition was read
   * (a file path resolves relative endpoints), if anywhere.
   */
  async resolve(def: V1Definition, source?: string): Promise<Record<string, PinnedFunction>> {
    const base = baseUrl(source, this.opts.baseDir);
    const catalogs = def.workflow.use?.catalogs;
    const out: Record<string, PinnedFunction> = {};
    const queue = documentCalls(def.workflow);
    while (queue.length) {
      const call = queue.shift()!;
      if (out[call]) continue;
      if (Object.keys(out).length >= MAX_FUNCTIONS) throw new FunctionNotResolved(`the definition calls more than ${MAX_FUNCTIONS} function documents`, true);
      const pinned = await this.function(def, call, base);
      out[call] = pinned;
      for (const next of callsOf(pinned.task)) if (needsDocument(next, catalogs) && !out[next]) queue.push(next);
    }
    return out;
  }

  /** One function document: fetched, parsed and checked. */
  private async function(def: V1Definition, call: string, base: URL): Promise<PinnedFunction> {
    const ref = parseCatalogCall(call);
    const what = ref ? `function ${ref.name} version ${ref.version} of catalog '${ref.catalog}'` : `function ${call}`;
    let address = '';
    try {
      let headers: Record<string, string> = {};
      if (ref) {
        const target = catalogTarget(def, ref, base);
        address = target.address;
        headers = await this.credentials(def, target.authentication);
      } else {
        address = addressOf(rawAddress(call), base);
      }
      const { text } = await this.fetchText(address, headers);
      const task = functionTask(text);
      await checkTask(def, call, task);
      return { task, source: address };
    } catch (err) {
      const e = err as Error & { permanent?: boolean };
      const permanent = err instanceof FunctionNotResolved ? err.permanent : e.permanent ?? true;
      throw new FunctionNotResolved(`cannot pin ${what}${address ? ` from ${address}` : ''}: ${e.message}`, permanent);
    }
  }

  /** The request headers of a catalog's authentication policy (none without one). */
  private async credentials(def: V1Definition, policy: unknown): Promise<Record<string, string>> {
    if (policy === undefined) return {};
    let p = policy;
    if (isObj(p) && typeof p.use === 'string' && Object.keys(p).length === 1) {
      const named = def.workflow.use?.authentications?.[p.use];
      if (!named) throw new FunctionNotResolved(`authentication '${p.use}' is not defined under use.authentications`, true);
      p = named;
    }
    const secrets = this.opts.secrets ?? (process.env as SecretValues);
    const missing = secretNamesIn(expressionsIn(p as Json)).filter((name) => secrets[name] === undefined);
    if (missing.length) throw new FunctionNotResolved(`authentication: secret${missing.length > 1 ? 's' : ''} ${missing.map((m) => `'${m}'`).join(', ')} not available to this worker`, true);
    const evaluated = await withSecrets(p as Json, secrets);
    const redactor = new Redactor();
    // resolveAuth reads the call's secret context: a catalog fetch has none but $secrets.
    const call = { function: { name: 'catalog', type: 'custom', operation: '' }, arguments: null, workflow: { id: '', instanceId: '', definitionId: def.id }, state: '' } as unknown as FunctionCall;
    const source: TokenSource = {
      secret: (name) => secrets[name],
      redact: (...values) => redactor.add(...values),
      authorize: (authDef) => resolveAuth(authDef, call, secrets, redactor, this.tokens),
      fetch: (request, options) => sendHttp(request, { ...options, signal: AbortSignal.timeout(this.timeoutMs()) }),
    };
    try {
      return await authenticationHeaders(evaluated, source);
    } catch (err) {
      throw new FunctionNotResolved(`authentication: ${redactor.text((err as Error).message)}`, true);
    }
  }

  private timeoutMs(): number {
    return this.opts.timeoutMs ?? 10_000;
  }

  private async fetchText(address: string, headers: Record<string, string>): Promise<Fetched> {
    const url = new URL(address);
    if (url.protocol === 'file:') return this.readFileText(fileURLToPath(url));
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new FunctionNotResolved(`'${url.protocol}' addresses are not supported (http, https and file are)`, true);
    const key = `${address}\n${createHash('sha256').update(JSON.stringify(headers)).digest('hex')}`;
    const cacheMs = this.opts.cacheMs ?? 60_000;
    const cached = this.answers.get(key);
    if (cached && Date.now() - cached.at < cacheMs) return { text: cached.text };
    const timeout = this.timeoutMs();
    let res: Response;
    try {
      res = await httpFetch(address, { headers: { accept: 'application/yaml, application/json, text/plain, */*', ...headers }, signal: AbortSignal.timeout(timeout) });
    } catch (err) {
      const e = err as Error & { cause?: { code?: string } };
      const why = e.name === 'TimeoutError' ? `no answer within ${timeout} ms` : e.cause?.code ?? e.message;
      throw new FunctionNotResolved(why, false);
    }
    const text = await res.text();
    if (!res.ok) {
      const hint = res.status === 401 || res.status === 403 ? ' (check the catalog endpoint\'s authentication)' : '';
      throw new FunctionNotResolved(`GET answered ${res.status} ${res.statusText}${hint}`, res.status < 500 && res.status !== 429);
    }
    if (cacheMs > 0) this.answers.set(key, { at: Date.now(), text });
    return { text };
  }

  private async readFileText(path: string): Promise<Fetched> {
    let st: Stats;
    try {
      st = await stat(path);
    } catch (err) {
      throw new FunctionNotResolved((err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (err as Error).message, true);
    }
    const cached = this.files.get(path);
    if (cached && cached.mtimeMs === st.mtimeMs && cached.size === st.size) return { text: cached.text };
    const text = await readFile(path, 'utf8');
    this.files.set(path, { mtimeMs: st.mtimeMs, size: st.size, text });
    return { text };
  }
}

/** Where relative addresses resolve: the definition's file, else the base folder (default: cwd). */
export function baseUrl(source: string | undefined, baseDir?: string): URL {
  if (source && /^[a-z][a-z0-9+.-]*:\/\//i.test(source)) return new URL(source);
  if (source && (source.startsWith('/') || /\.(json|ya?ml)$/i.test(source))) return pathToFileURL(resolvePath(source));
  return pathToFileURL(resolvePath(baseDir ?? process.cwd()) + '/');
}

/**
 * An endpoint or function URI as an absolute address. `file://./<path>` and `file://../<path>`
 * (what the 1.0 schema lets a relative file reference look like) are relative to `base`.
 */
export function addressOf(uri: string, base: URL): string {
  const relative = /^file:\/\/(\.\.?\/.*)$/i.exec(uri);
  return new URL(relative ? relative[1] : uri, base).href;
}

/** A cataloged function's document address and the catalog's authentication policy. */
export function catalogTarget(def: V1Definition, ref: CatalogRef, base: URL): { address: string; authentication?: unknown } {
  const catalog = def.workflow.use?.catalogs?.[ref.catalog];
  if (!catalog) throw new FunctionNotResolved(`catalog '${ref.catalog}' is not defined under use.catalogs`, true);
  const { uri, authentication } = endpointParts(catalog.endpoint);
  if (!uri) throw new FunctionNotResolved(`catalog '${ref.catalog}' has no endpoint uri`, true);
  if (uri.includes('${')) throw new FunctionNotResolved(`catalog '${ref.catalog}': an endpoint is read when the definition is pinned, so it cannot be a runtime expression`, true);
  const root = addressOf(rawAddress(uri), base);
  return { address: catalogFunctionAddress(root, ref), ...(authentication !== undefined ? { authentication } : {}) };
}

/** The task a function document holds (YAML or JSON). */
export function functionTask(text: string): Task {
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (err) {
    throw new FunctionNotResolved(`not YAML or JSON: ${(err as Error).message.split('\n')[0]}`, true);
  }
  if (!isObj(doc)) throw new FunctionNotResolved('the document is not a task (an object with one of call, do, fork, emit, for, listen, raise, run, set, switch, try, wait)', true);
  if (!taskTypeOf(doc as Task)) throw new FunctionNotResolved('the document is not a task: it has none of call, do, fork, emit, for, listen, raise, run, set, switch, try, wait', true);
  return doc as Task;
}

/**
 * A function's task checked as the workflow's own tasks are (the 1.0 schema and the rules beyond
 * it), inside a document with the caller's `use` (the function's references resolve there at run time).
 */
export async function checkTask(def: V1Definition, call: string, task: Task): Promise<void> {
  const dsl = await import('../../dsl');
  const wrapper = {
    document: { dsl: def.dsl || '1.0.3', namespace: 'catalog', name: 'function', version: '0.0.0' },
    ...(def.workflow.use ? { use: def.workflow.use } : {}),
    do: [{ function: task }],
  };
  const { problems } = await dsl.loadAnyDefinition(wrapper, { source: call });
  const errors = problems.filter((p) => p.severity === 'error' && (p.pointer ?? '').startsWith('/do/0/function'));
  if (errors.length) {
    const list = errors.slice(0, 5).map((p) => `${(p.pointer ?? '').slice('/do/0/function'.length) || '/'}: ${p.message}${p.hint ? ` (${p.hint})` : ''}`);
    throw new FunctionNotResolved(`not a valid 1.0 task: ${list.join('; ')}`, true);
  }
}

/** The `${ }` strings of a policy. */
function expressionsIn(v: Json, out: string[] = []): string[] {
  if (typeof v === 'string') {
    if (v.includes('${')) out.push(v);
  } else if (Array.isArray(v)) v.forEach((x) => expressionsIn(x, out));
  else if (isObj(v)) Object.values(v).forEach((x) => expressionsIn(x, out));
  return out;
}

/** A policy with its `${ }` strings evaluated over `$secrets` (nothing else is bound when a definition is pinned). */
async function withSecrets(v: Json, secrets: SecretValues): Promise<Json> {
  if (typeof v === 'string') {
    if (!v.includes('${')) return v;
    const { evaluateWithSecrets } = await import('../../expr/secrets');
    try {
      return await evaluateWithSecrets(v, null, { variables: { secrets: secrets as Json } }, secrets as Record<string, Json>);
    } catch (err) {
      throw new FunctionNotResolved(`authentication expression ${v}: ${(err as Error).message}`, true);
    }
  }
  if (Array.isArray(v)) return Promise.all(v.map((x) => withSecrets(x, secrets)));
  if (isObj(v)) {
    const out: Record<string, Json> = {};
    for (const [k, x] of Object.entries(v)) out[k] = await withSecrets(x, secrets);
    return out;
  }
  return v;
}
