/**
 * The rules of a 1.0 document that its JSON schema cannot say, checked on the (possibly
 * schema-invalid, so defensively read) document:
 * - task names are unique within their list, and a flow directive (`then` of a task, of a
 *   switch case, of a catch) names a task of its own list ("Flow directives may only redirect
 *   to tasks declared within their own scope");
 * - references into `use` resolve: functions (`call`), errors (`raise.error`), retries
 *   (`catch.retry`), timeouts (`timeout`), authentications (`authentication.use`), secrets
 *   (`basic: { use: secret }` …), catalogs (`call: name:version@catalog`; a catalog's endpoint is a
 *   literal URI: it is read when the definition is pinned);
 * - runtime expressions compile (jq), and `$secrets` appears only in call arguments (`with`),
 *   which the activity evaluates, and in a catalog endpoint's authentication, which the worker
 *   evaluates when it fetches the catalog: secret values never enter workflow history;
 * - literal durations are ones swflow can time (no years or months, which the schema allows);
 *   a duration written as a runtime expression is evaluated at run time (v1/durations.ts);
 * - what swflow cannot run yet is a warning (an error with --strict), named in the
 *   conformance matrix (docs/dsl-1.0-conformance.md).
 */
import { checkExpressionsSyntax } from '../../expr/syntax';
import { durationProblem } from '../../common/duration';
import { parseCron } from '../v08/schedule';
import type { Reporter } from '../findings';
import { joinPointer } from '../source';
import { isObj, type Obj } from '../v08/walk';
import { endpointParts, isUriCall, parseCatalogCall } from '../../common/catalogs';
import { BUILTIN_CALLS, entryOf, taskTypeOf, type ConsumptionStrategy, type Task } from '../../common/model-v1';
import { ACTIVITY_OF_CALL } from '../../common/call-kinds';
import { readsEventOnly, strategyFilters } from '../../common/awaited-events';
import { isLocalCall, LOCAL_BOUND_METADATA, LOCAL_METADATA, localBoundProblem, localProblem } from '../../common/metadata';
import { taskLists, type TaskList } from './walk';

const DIRECTIVES = new Set(['continue', 'exit', 'end']);
const SECRETS_RE = /\$secrets(?![A-Za-z0-9_])/;
/** A catalog's endpoint: its authentication may read `$secrets` (the worker evaluates it when it pins the definition). */
const CATALOG_ENDPOINT = /^\/use\/catalogs\/[^/]+\/endpoint$/;

/** Why swflow cannot run something yet (the warning text; the matrix quotes it). */
export const UNSUPPORTED = {
  container: "'run.container' runs only where a worker serves the opt-in process queue (swflow start --allow-processes, or swflow processes) and has a container engine (podman by default): it runs arbitrary images",
  script: "'run.script' runs only where a worker serves the opt-in process queue (swflow start --allow-processes, or swflow processes): it executes arbitrary code",
  shell: "'run.shell' runs only where a worker serves the opt-in process queue (swflow start --allow-processes, or swflow processes): it executes arbitrary code",
  scheduleEveryExpression: "'schedule.every' as a runtime expression is not supported: the interval of the Temporal Schedule is fixed when the schedule is made, before any run has data to evaluate it on; write an ISO 8601 duration or an inline one",
  authorizationCode: (scheme: string) =>
    `${scheme} grant 'authorization_code' cannot be used by a workflow: it needs a user agent (a person signing in at the authority in a browser, which brings the code back to a redirect URI); obtain a refresh token once and use the 'refresh_token' grant (subject.token), or 'client_credentials'`,
} as const;

interface Ctx {
  rep: Reporter;
  use: Obj;
  /** jq's message for each expression, or undefined: each distinct text checked once, valid ones compiled together. */
  syntax: (exprs: readonly string[]) => Map<string, string | undefined>;
  /** The names `use.<kind>` defines (an object's keys), indexed once: a document refers to them from every task. */
  defined: (kind: 'functions' | 'errors' | 'retries' | 'timeouts' | 'authentications' | 'catalogs') => Set<string>;
  /** The other lists that hold a task of this name (for the hint of a `then` that leaves its list), indexed once. */
  listsHolding: (task: string) => TaskList[];
}


export function checkV1Semantics(doc: Obj, rep: Reporter): void {
  const use = isObj(doc.use) ? doc.use : {};
  const index = new Map<string, Set<string>>();
  const defined: Ctx['defined'] = (kind) => {
    let names = index.get(kind);
    if (!names) index.set(kind, (names = new Set(isObj(use[kind]) ? Object.keys(use[kind]) : [])));
    return names;
  };
  let holding: Map<string, TaskList[]> | undefined;
  const listsHolding = (task: string): TaskList[] => {
    if (!holding) {
      holding = new Map();
      for (const l of taskLists(doc)) for (const t of l.tasks) holding.set(t.name, [...(holding.get(t.name) ?? []), l]);
    }
    return holding.get(task) ?? [];
  };
  const ctx: Ctx = { rep, use, syntax: syntaxOfMany, defined, listsHolding };
  const ev = isObj(doc.evaluate) ? doc.evaluate : {};
  if (ev.language !== undefined && ev.language !== 'jq') rep.error('/evaluate/language', `expression language '${ev.language}' is not supported`, "only 'jq' is");
  if (isObj(doc.schedule)) checkSchedule(doc.schedule, rep);
  const meta = isObj(doc.document) && isObj((doc.document as Obj).metadata) ? ((doc.document as Obj).metadata as Obj) : undefined;
  const localDefault = meta?.[LOCAL_METADATA] === undefined ? undefined : localProblem(meta[LOCAL_METADATA]);
  if (localDefault) rep.error(`/document/metadata/${LOCAL_METADATA}`, `${LOCAL_METADATA}: ${localDefault}`, "true runs the document's call: http|openapi|grpc|asyncapi tasks as local activities (a task's own metadata overrides it)");
  if (typeof doc.timeout === 'string') ref(ctx, 'timeouts', doc.timeout, '/timeout', 'timeout');
  checkTimeout(ctx, doc.timeout, '/timeout');
  if (isObj(use.timeouts)) for (const [name, t] of Object.entries(use.timeouts)) checkTimeout(ctx, t, joinPointer('use', 'timeouts', name));
  if (isObj(use.retries)) for (const [name, r] of Object.entries(use.retries)) checkRetryDurations(ctx, r, joinPointer('use', 'retries', name));
  checkDataSlots(ctx, doc, '');
  checkList(ctx, doc.do, '/do', false);
  if (isObj(use.functions)) for (const [name, fn] of Object.entries(use.functions)) if (isObj(fn)) checkTask(ctx, fn as Task, joinPointer('use', 'functions', name), false);
  if (Array.isArray(use.extensions)) checkExtensions(ctx, use.extensions);
  if (isObj(use.authentications)) for (const [name, a] of Object.entries(use.authentications)) checkAuth(ctx, a, joinPointer('use', 'authentications', name));
  if (isObj(use.catalogs)) for (const [name, c] of Object.entries(use.catalogs)) checkCatalog(ctx, c, joinPointer('use', 'catalogs', name));
  checkExpressions(ctx, doc, '');
}

/**
 * `use.extensions`: names unique, each extension's `before` and `after` are task lists of their
 * own (flow directives stay within them; `exit` leaves the list, which bypasses the extended task
 * or replaces its output: src/workflow/v1/extensions.ts).
 */
function checkExtensions(ctx: Ctx, list: unknown[]): void {
  const seen = new Set<string>();
  list.forEach((item, i) => {
    if (!isObj(item) || Object.keys(item).length !== 1) return;
    const [name, ext] = entryOf(item);
    if (seen.has(name)) ctx.rep.error(joinPointer('use', 'extensions', i, name), `duplicate extension name '${name}'`, 'extension names must be unique', { key: true });
    seen.add(name);
    if (!isObj(ext)) return;
    for (const when of ['before', 'after']) checkList(ctx, ext[when], joinPointer('use', 'extensions', i, name, when), false);
  });
}

/**
 * `every` and `cron` become a Temporal Schedule (src/client/schedules.ts); `after` runs the
 * workflow again after each completion and `on` starts runs by events (src/workflow/v1/schedule.ts,
 * src/gateway/routing-v1.ts): one of them per document.
 */
function checkSchedule(schedule: Obj, rep: Reporter): void {
  const given = ['every', 'cron', 'after', 'on'].filter((k) => schedule[k] !== undefined);
  if (given.length > 1) rep.error('/schedule', `a schedule gives one of 'every', 'cron', 'after' or 'on', not ${given.map((k) => `'${k}'`).join(' and ')}`);
  if (typeof schedule.after === 'string' && !schedule.after.includes('${')) {
    const problem = durationProblem(schedule.after);
    if (problem) rep.error('/schedule/after', problem);
  }
  if (isObj(schedule.on)) {
    for (const [i, f] of strategyFilters(schedule.on as ConsumptionStrategy).entries()) {
      for (const [key, c] of Object.entries(f.correlate ?? {})) {
        if (isObj(c) && typeof c.from === 'string' && !readsEventOnly(c.from)) {
          rep.warn('/schedule/on', `filter ${i + 1}: correlate.${key}.from reads more than the event: the gateway evaluates it on the event alone to name the instance, so events it cannot evaluate start separate runs`);
        }
      }
    }
  }
  if (typeof schedule.cron === 'string') {
    const r = parseCron(schedule.cron);
    if (r.problem !== undefined) rep.error('/schedule/cron', `invalid cron expression: ${r.problem}`);
  }
  if (isDurationExpression(schedule.every)) rep.warn('/schedule/every', UNSUPPORTED.scheduleEveryExpression);
  else if (typeof schedule.every === 'string') {
    const problem = durationProblem(schedule.every);
    if (problem) rep.error('/schedule/every', problem);
  }
}

/** The schema's `runtimeExpression` and literal `duration` patterns. */
const EXPRESSION_RE = /^\s*\$\{[\s\S]+\}\s*$/;
const SCHEMA_DURATION_RE = /^P(?!$)(\d+(?:\.\d+)?Y)?(\d+(?:\.\d+)?M)?(\d+(?:\.\d+)?W)?(\d+(?:\.\d+)?D)?(T(?=\d)(\d+(?:\.\d+)?H)?(\d+(?:\.\d+)?M)?(\d+(?:\.\d+)?S)?)?$/;
const isDurationExpression = (d: unknown): boolean => typeof d === 'string' && EXPRESSION_RE.test(d);

/**
 * A literal duration the schema accepts but swflow cannot time (years, months: no fixed length).
 * Other strings that are neither a duration nor an expression are the schema's to report, and an
 * expression is evaluated when the duration is needed (its syntax is checked with the others).
 */
function checkDuration(ctx: Ctx, d: unknown, pointer: string): void {
  if (typeof d !== 'string' || isDurationExpression(d) || !SCHEMA_DURATION_RE.test(d)) return;
  const problem = durationProblem(d);
  if (problem) ctx.rep.error(pointer, problem);
}

function checkTimeout(ctx: Ctx, t: unknown, pointer: string): void {
  if (isObj(t)) checkDuration(ctx, t.after, `${pointer}/after`);
}

function checkRetryDurations(ctx: Ctx, r: unknown, pointer: string): void {
  if (!isObj(r)) return;
  checkDuration(ctx, r.delay, `${pointer}/delay`);
  const limit = isObj(r.limit) ? r.limit : {};
  checkDuration(ctx, limit.duration, `${pointer}/limit/duration`);
  if (isObj(limit.attempt)) checkDuration(ctx, limit.attempt.duration, `${pointer}/limit/attempt/duration`);
  if (isObj(r.jitter)) for (const k of ['from', 'to']) checkDuration(ctx, r.jitter[k], `${pointer}/jitter/${k}`);
}

function ref(ctx: Ctx, kind: 'functions' | 'errors' | 'retries' | 'timeouts' | 'authentications', name: string, pointer: string, what: string): void {
  if (!ctx.defined(kind).has(name)) {
    const defined = [...ctx.defined(kind)];
    ctx.rep.error(pointer, `unknown ${what} '${name}'`, defined.length ? `use.${kind} defines: ${defined.join(', ')}` : `define it under use.${kind}`);
  }
}

function checkList(ctx: Ctx, list: unknown, pointer: string, inFork: boolean, extraTargets: string[] = []): void {
  if (!Array.isArray(list)) return;
  const names = new Map<string, number>();
  list.forEach((item, i) => {
    if (!isObj(item) || Object.keys(item).length !== 1) return;
    const [name] = entryOf(item);
    if (names.has(name)) ctx.rep.error(joinPointer(...pointer.slice(1).split('/'), i, name), `duplicate task name '${name}'`, 'task names must be unique within their list', { key: true });
    else names.set(name, i);
  });
  const known = new Set([...names.keys(), ...extraTargets]);
  // A task of that name in another list: say which (an easy slip is to jump into or out of a nested list).
  const elsewhere = (t: string): string => {
    const lists = ctx.listsHolding(t).filter((l) => l.pointer !== pointer);
    if (!lists.length) return '';
    const where = lists.map((l) => {
      const at = ctx.rep.map.locate(l.pointer, true);
      const line = at.line !== undefined ? `, line ${at.line}` : '';
      return l.holder !== undefined ? `the ${l.pointer.slice(l.pointer.lastIndexOf('/') + 1)} list of task '${l.holder}' (${l.pointer}${line})` : `the list ${l.pointer}${line}`;
    });
    return `'${t}' is in ${where.join(' and in ')}; `;
  };
  const target = (t: unknown, p: string) => {
    if (typeof t !== 'string' || DIRECTIVES.has(t)) return;
    if (inFork) ctx.rep.error(p, `'then: ${t}' cannot leave a fork branch`, 'branches run concurrently: only continue, exit and end apply');
    else if (!known.has(t)) ctx.rep.error(p, `'then' names task '${t}', which is not in this task list`, `${elsewhere(t)}flow directives may only go to tasks of their own list: ${[...known].join(', ') || 'none'}`);
  };
  list.forEach((item, i) => {
    if (!isObj(item) || Object.keys(item).length !== 1) return;
    const [name, task] = entryOf(item);
    if (!isObj(task)) return;
    const tp = `${pointer}${joinPointer(i, name)}`;
    target(task.then, `${tp}/then`);
    if (Array.isArray(task.switch)) {
      task.switch.forEach((c: unknown, j: number) => {
        if (!isObj(c) || Object.keys(c).length !== 1) return;
        const [cname, body] = entryOf(c);
        if (isObj(body)) target(body.then, `${tp}${joinPointer('switch', j, cname, 'then')}`);
      });
    }
    if (isObj(task.catch)) target(task.catch.then, `${tp}/catch/then`);
    checkTask(ctx, task as Task, tp, inFork);
  });
}

function checkTask(ctx: Ctx, task: Task, tp: string, _inFork: boolean): void {
  const type = taskTypeOf(task);
  if (typeof task.timeout === 'string') ref(ctx, 'timeouts', task.timeout, `${tp}/timeout`, 'timeout');
  checkTimeout(ctx, task.timeout, `${tp}/timeout`);
  checkDuration(ctx, task.wait, `${tp}/wait`);
  checkDataSlots(ctx, task as Obj, tp);
  switch (type) {
    case 'call':
      checkCall(ctx, task, tp);
      break;
    case 'raise':
      if (typeof task.raise?.error === 'string') ref(ctx, 'errors', task.raise.error, `${tp}/raise/error`, 'error');
      break;
    case 'try':
      checkList(ctx, task.try, `${tp}/try`, false);
      if (typeof task.catch?.retry === 'string') ref(ctx, 'retries', task.catch.retry, `${tp}/catch/retry`, 'retry policy');
      else checkRetryDurations(ctx, task.catch?.retry, `${tp}/catch/retry`);
      checkList(ctx, task.catch?.do, `${tp}/catch/do`, false);
      break;
    case 'do':
    case 'for':
      checkList(ctx, task.do, `${tp}/do`, false);
      break;
    case 'fork':
      checkList(ctx, task.fork?.branches, `${tp}/fork/branches`, true);
      break;
    case 'listen':
      checkList(ctx, task.foreach?.do, `${tp}/foreach/do`, false);
      break;
    case 'run':
      if (isObj(task.run?.container)) ctx.rep.info(`${tp}/run/container`, UNSUPPORTED.container);
      if (isObj(task.run?.script)) ctx.rep.info(`${tp}/run/script`, UNSUPPORTED.script);
      if (isObj(task.run?.shell)) ctx.rep.info(`${tp}/run/shell`, UNSUPPORTED.shell);
      break;
    default:
      break;
  }
}

function checkCall(ctx: Ctx, task: Task, tp: string): void {
  const call = task.call;
  if (typeof call !== 'string') return;
  const w = isObj(task.with) ? task.with : {};
  const bound = isObj(task.metadata) ? task.metadata[LOCAL_BOUND_METADATA] : undefined;
  const boundProblem = bound === undefined ? undefined : localBoundProblem(bound);
  if (boundProblem) ctx.rep.error(`${tp}/metadata/${LOCAL_BOUND_METADATA}`, `${LOCAL_BOUND_METADATA}: ${boundProblem}`, 'how long a local call runs locally before it is made as an activity (default PT30S), or "off"');
  const local = isObj(task.metadata) ? task.metadata[LOCAL_METADATA] : undefined;
  if (local !== undefined) {
    const problem = localProblem(local);
    // Not call: a2a, which follows long agent tasks with heartbeats (a local activity has none).
    const servedHere = Object.hasOwn(ACTIVITY_OF_CALL, call) && call !== 'a2a' && !(isObj(task.metadata) && task.metadata.worker);
    if (problem) ctx.rep.error(`${tp}/metadata/${LOCAL_METADATA}`, `${LOCAL_METADATA}: ${problem}`, 'true runs the call as a local activity on the interpreter worker');
    else if (isLocalCall(task.metadata as Obj) && !servedHere) {
      ctx.rep.error(`${tp}/metadata/${LOCAL_METADATA}`, `${LOCAL_METADATA}: only call: http, openapi, grpc, asyncapi and mcp without metadata.worker can run locally (call: a2a follows long agent tasks with heartbeats: an activity)`, 'the interpreter worker runs swflow\'s built-in adapters; other calls are served elsewhere');
    }
  }
  if ((BUILTIN_CALLS as readonly string[]).includes(call)) {
    if (call === 'a2a') {
      checkA2A(ctx, w, tp);
      return;
    }
    // A subscription's iterator runs its tasks in the workflow, as a listen's.
    const sub = call === 'asyncapi' && isObj(w.subscription) ? (w.subscription as Obj) : undefined;
    // (Governed by while/until, it runs as the messages come: v1-subscription-streaming.)
    if (sub && isObj(sub.foreach)) checkList(ctx, (sub.foreach as Obj).do as Task['do'], `${tp}/with/subscription/foreach/do`, false);
    const service = isObj(w.service) ? (w.service as Obj) : undefined;
    if (call === 'grpc' && service?.authentication !== undefined) checkAuth(ctx, service.authentication, `${tp}/with/service/authentication`);
    const mcpHttp = call === 'mcp' && isObj(w.transport) && isObj((w.transport as Obj).http) ? ((w.transport as Obj).http as Obj) : undefined;
    if (mcpHttp && isObj(mcpHttp.endpoint) && (mcpHttp.endpoint as Obj).authentication !== undefined) checkAuth(ctx, (mcpHttp.endpoint as Obj).authentication, `${tp}/with/transport/http/endpoint/authentication`);
    const doc = isObj(w.document) ? (w.document as Obj) : undefined;
    const endpoint: Obj | undefined = isObj(w.endpoint) ? (w.endpoint as Obj) : doc && isObj(doc.endpoint) ? (doc.endpoint as Obj) : undefined;
    const authPtr = isObj(w.endpoint) ? `${tp}/with/endpoint/authentication` : `${tp}/with/authentication`;
    if (endpoint && endpoint.authentication !== undefined) checkAuth(ctx, endpoint.authentication, `${tp}/with/endpoint/authentication`);
    else if (w.authentication !== undefined) checkAuth(ctx, w.authentication, authPtr);
    return;
  }
  // A function document by URI: the interpreter worker fetches it when it pins the definition.
  if (isUriCall(call)) {
    if (!/^(https?|file):/i.test(call)) ctx.rep.error(`${tp}/call`, `cannot fetch a function from '${call.slice(0, call.indexOf(':'))}:' addresses`, 'http, https and file URIs are supported');
    return;
  }
  const cataloged = parseCatalogCall(call);
  if (cataloged) {
    const catalogs = ctx.defined('catalogs');
    if (cataloged.catalog === 'default') return; // swflow's default catalog (adapter activities), unless use.catalogs.default overrides it
    if (!catalogs.has(cataloged.catalog)) ctx.rep.error(`${tp}/call`, `unknown catalog '${cataloged.catalog}'`, catalogs.size ? `use.catalogs defines: ${[...catalogs].join(', ')}` : 'define it under use.catalogs, or use @default');
    return;
  }
  ref(ctx, 'functions', call, `${tp}/call`, 'function');
}

/** `call: a2a` needs an agent: `agentCard` (its endpoint) or `server`; their authentication is checked. */
function checkA2A(ctx: Ctx, w: Obj, tp: string): void {
  const card = isObj(w.agentCard) ? (w.agentCard as Obj) : undefined;
  if (card === undefined && w.server === undefined) {
    ctx.rep.error(`${tp}/with`, "call: a2a needs 'agentCard' or 'server'", 'agentCard: { endpoint: <URL of the agent card> }, or server: <URL of the agent\'s JSON-RPC endpoint>');
    return;
  }
  const endpoint = card ? card.endpoint : w.server;
  const at = card ? `${tp}/with/agentCard/endpoint/authentication` : `${tp}/with/server/authentication`;
  if (isObj(endpoint) && endpoint.authentication !== undefined) checkAuth(ctx, endpoint.authentication, at);
}

/**
 * A catalog's endpoint is read when the definition is pinned (before the run has data): a literal
 * URI (http, https, file, or a path), with an authentication policy whose `$secrets` the worker reads.
 */
function checkCatalog(ctx: Ctx, catalog: unknown, pointer: string): void {
  if (!isObj(catalog)) return;
  const { uri, authentication } = endpointParts(catalog.endpoint);
  const uriPointer = isObj(catalog.endpoint) ? `${pointer}/endpoint/uri` : `${pointer}/endpoint`;
  if (uri !== undefined && uri.includes('${')) ctx.rep.error(uriPointer, 'a catalog endpoint cannot be a runtime expression', 'catalogs are read when the definition is pinned, before the run has data');
  else if (uri !== undefined && /^[a-z][a-z0-9+.-]*:/i.test(uri) && !/^(https?|file):/i.test(uri)) ctx.rep.error(uriPointer, `cannot read a catalog at '${uri}'`, 'http, https and file URIs (or paths) are supported');
  if (authentication !== undefined) checkAuth(ctx, authentication, `${pointer}/endpoint/authentication`);
}

function checkAuth(ctx: Ctx, auth: unknown, pointer: string): void {
  if (!isObj(auth)) return;
  if (typeof auth.use === 'string' && Object.keys(auth).length === 1) {
    ref(ctx, 'authentications', auth.use, `${pointer}/use`, 'authentication');
    return;
  }
  for (const scheme of ['basic', 'bearer', 'digest', 'oauth2', 'oidc', 'certificate']) {
    const body = auth[scheme];
    if (body === undefined) continue;
    if ((scheme === 'oauth2' || scheme === 'oidc') && isObj(body)) {
      if (body.grant === 'authorization_code') ctx.rep.error(`${pointer}/${scheme}/grant`, UNSUPPORTED.authorizationCode(scheme));
      if (body.grant === 'refresh_token' && !(isObj(body.subject) && body.subject.token !== undefined)) ctx.rep.error(`${pointer}/${scheme}/subject`, `${scheme} grant 'refresh_token' takes the refresh token from 'subject.token'`, "give subject: { token: <refresh token>, type: 'urn:ietf:params:oauth:token-type:refresh_token' }");
    }
    if (isObj(body) && typeof body.use === 'string') {
      const secrets: unknown[] = Array.isArray(ctx.use.secrets) ? ctx.use.secrets : [];
      if (!secrets.includes(body.use)) ctx.rep.error(`${pointer}/${scheme}/use`, `unknown secret '${body.use}'`, 'list it under use.secrets');
    }
  }
}

/** input/output/export schemas: JSON Schema, inline or an external resource (fetched by the worker, with its authentication). */
function checkDataSlots(ctx: Ctx, holder: Obj, base: string): void {
  for (const slot of ['input', 'output', 'export']) {
    const s = isObj(holder[slot]) && isObj(holder[slot].schema) ? holder[slot].schema : undefined;
    if (!s) continue;
    const endpoint = isObj(s.resource) ? s.resource.endpoint : undefined;
    if (isObj(endpoint)) checkAuth(ctx, endpoint.authentication, `${base}/${slot}/schema/resource/endpoint/authentication`);
    if (s.format !== undefined && !/^json(:|$)/.test(String(s.format))) ctx.rep.error(`${base}/${slot}/schema/format`, `schema format '${s.format}' is not supported`, "only 'json' (JSON Schema) is");
  }
}

/** Keys whose string value is always a runtime expression (bare jq accepted), outside data. */
const ALWAYS_EXPRESSION = new Set(['if', 'while', 'when', 'exceptWhen', 'in', 'from', 'as', 'until', 'set']);
/** Keys under which values are data (only `${ }` strings are expressions there). */
const DATA_SLOTS = new Set(['with', 'set', 'data', 'body', 'headers', 'query', 'arguments', 'environment', 'parameters', 'input', 'as', 'from']);
/** Subtrees that hold JSON schemas or free metadata, not expressions. */
const NOT_EXPRESSIONS = new Set(['schema', 'metadata']);
/** Keys that hold names (a catch's `as`, a for's `each`/`at`, an iterator's `item`). */
function isName(key: string, parentKey: string | undefined): boolean {
  return (key === 'as' && parentKey === 'catch') || key === 'each' || key === 'at' || key === 'item' || (key === 'in' && parentKey !== 'for');
}

/** Every runtime expression compiles; `$secrets` only inside call arguments. */
function checkExpressions(ctx: Ctx, doc: Obj, base: string): void {
  // The walk only collects; findings are reported afterwards in the walk's order, once every
  // distinct text has been checked in one batch.
  const found: { p: string; v: string; secrets: boolean }[] = [];
  const visit = (v: unknown, p: string, key: string | undefined, parentKey: string | undefined, data: boolean, inWith: boolean) => {
    if (typeof v === 'string') {
      // A jitter's `from` is a duration: an expression only when written `${ }`.
      const always = !data && key !== undefined && ALWAYS_EXPRESSION.has(key) && !(key === 'from' && parentKey === 'jitter');
      if (!always && !v.includes('${')) return;
      found.push({ p, v, secrets: SECRETS_RE.test(v) && !inWith });
      return;
    }
    // Below a data key, only `${ }` strings are expressions.
    const inner = data || (key !== undefined && DATA_SLOTS.has(key));
    if (Array.isArray(v)) v.forEach((x, i) => visit(x, `${p}/${i}`, undefined, key, inner, inWith));
    else if (isObj(v)) {
      for (const [k, x] of Object.entries(v)) {
        if (!inner && (NOT_EXPRESSIONS.has(k) || isName(k, key))) continue;
        visit(x, `${p}${joinPointer(k)}`, k, key, inner, inWith || (k === 'with' && 'call' in v) || (k === 'authentication' && CATALOG_ENDPOINT.test(p)));
      }
    }
  };
  for (const [k, v] of Object.entries(doc)) if (k !== 'document') visit(v, `${base}${joinPointer(k)}`, k, undefined, false, false);
  const problems = ctx.syntax(found.map((f) => f.v));
  for (const { p, v, secrets } of found) {
    if (secrets) ctx.rep.error(p, '$secrets may only be used in the arguments (with) of a call and in a catalog endpoint\'s authentication', 'secret values are resolved by the worker, so they never enter workflow history');
    const problem = problems.get(v);
    if (problem) ctx.rep.error(p, `invalid runtime expression: ${problem}`);
  }
}

/** jq's message (or undefined) for each distinct text, checked together. */
function syntaxOfMany(exprs: readonly string[]): Map<string, string | undefined> {
  const distinct = [...new Set(exprs)];
  const problems = checkExpressionsSyntax(distinct);
  return new Map(distinct.map((e, i) => [e, problems[i]]));
}
