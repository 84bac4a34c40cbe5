/**
 * The CNCF Serverless WG workflow draft v0.1 (`trigger-defs`, upper-case state types,
 * `next-state`, `action-mode`, switch `choices`, `DELAY`, `END`, `PARALLEL` branches of states,
 * `InputPath`/`ResultPath`/`OutputPath`, action `retry`, `SYS.*` errors), translated into a
 * 0.8-shaped document with the same meaning. What cannot be expressed is an error naming it.
 *
 * Mapping:
 * - `start: true` on exactly one state → `start`.
 * - `next-state` → `transition`; a state without one (other than END/SWITCH) → `end: true`.
 * - `END` states disappear: transitions to them become `end` (`status: FAILURE` is an error:
 *   0.8 has no "end as failed").
 * - `DELAY` `time-delay` (seconds) → `sleep` state with `PT<n>S`.
 * - `OPERATION` → `operation`; actions `{function}` → functionRef to a `custom` function of
 *   that name; `action-mode` → actionMode.
 * - `EVENT` with one or more `events` sharing one `next-state` → `event` state; an
 *   `event-expression` "A or B" → one onEvents with eventRefs [A, B] (exclusive); "A and B"
 *   → exclusive: false.
 * - `SWITCH` `choices` (path/operator/value, And/Or/Not) → jq conditions; `default` → defaultCondition.
 * - `PARALLEL` branches whose states are OPERATION states in a straight line → branch actions.
 * - `InputPath` → stateDataFilter.input; `OutputPath` → stateDataFilter.output; `ResultPath` →
 *   toStateData of the state's actions (JSONPath `$.a.b` → jq `.a.b`).
 * - action `retry` (match, retry-interval, max-retry, next-state) → a retry definition,
 *   errors named by `match` (SYS.* kept as error codes), retryableErrors and an onErrors
 *   transition to `next-state`.
 * - `trigger-defs` → consumed events; `type` is required (v0.1's `eventID` cannot identify an
 *   event type); `correlation-token` (a top-level name) → correlation contextAttributeName.
 */
import type { Reporter } from '../findings';
import type { SourceMap } from '../source';
import { simpleJsonPathToJq } from '../jsonpath';
import { arr, isObj, type Obj } from '../v08/walk';

const TYPES = ['EVENT', 'OPERATION', 'SWITCH', 'DELAY', 'END', 'PARALLEL'];

export function isV01(doc: Obj): boolean {
  if ('trigger-defs' in doc || String(doc.specVersion) === '0.1') return true;
  return arr(doc.states).some((s) => isObj(s) && (TYPES.includes(s.type) || 'next-state' in s || 'action-mode' in s));
}

/** JSONPath `$.a.b[0]` → jq `.a.b[0]`; undefined when not a simple (definite) path. */
export const jsonPathToJq = simpleJsonPathToJq;

const seconds = (v: unknown): string | undefined => {
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\d+(\.\d+)?$/.test(v.trim()) ? Number(v) : NaN;
  return Number.isFinite(n) && n > 0 ? `PT${n}S` : undefined;
};

const OPS: Record<string, (a: string, b: string) => string> = {
  EQ: (a, b) => `${a} == ${b}`,
  LT: (a, b) => `${a} < ${b}`,
  LTEQ: (a, b) => `${a} <= ${b}`,
  GT: (a, b) => `${a} > ${b}`,
  GTEQ: (a, b) => `${a} >= ${b}`,
};

export function translateV01(src: Obj, rep: Reporter, map: SourceMap): Obj {
  const out: Obj = { id: src.id ?? src.name ?? 'workflow', specVersion: '0.8', states: [] };
  if (src.name !== undefined) out.name = src.name;
  if (src.version !== undefined) out.version = String(src.version);
  if (src.description !== undefined) out.description = src.description;
  if (src.id === undefined && src.name === undefined) rep.warn('', "v0.1 document has no 'id' or 'name'; its id is 'workflow'");
  const functions = new Map<string, Obj>();
  const errors = new Map<string, Obj>();
  const retries: Obj[] = [];

  // Events.
  const events: Obj[] = [];
  arr(src['trigger-defs']).forEach((t, i) => {
    const p = `/trigger-defs/${i}`;
    if (!isObj(t)) return;
    const e: Obj = { name: t.name, kind: 'consumed' };
    if (t.source !== undefined) e.source = t.source;
    if (typeof t.type === 'string') e.type = t.type;
    else rep.error(p, `trigger '${t.name}' has no CloudEvent 'type'`, "v0.1's eventID cannot identify the kind of event; add type: <CloudEvent type>");
    const tok = t['correlation-token'];
    if (typeof tok === 'string') {
      const name = /^(?:\$\.)?([A-Za-z_][\w]*)$/.exec(tok.trim())?.[1];
      if (name) e.correlation = [{ contextAttributeName: name }];
      else rep.error(`${p}/correlation-token`, `correlation-token '${tok}' is not a top-level name`, 'only a CloudEvent context attribute name can correlate events');
    }
    events.push(e);
  });
  if (events.length) out.events = events;

  const states = arr(src.states).filter(isObj);
  const endStates = new Map<string, Obj>();
  states.forEach((s) => s.type === 'END' && endStates.set(s.name, s));
  const starts = states.filter((s) => s.start === true);
  if (starts.length === 0) rep.error('/states', 'no state has start: true');
  else if (starts.length > 1) rep.error('/states', `more than one state has start: true (${starts.map((s) => s.name).join(', ')})`);
  else out.start = starts[0].name;

  const flow = (target: unknown, p: string): Obj => {
    if (typeof target !== 'string') return { end: true };
    const e = endStates.get(target);
    if (e) {
      if (e.status !== undefined && e.status !== 'SUCCESS') rep.error(p, `END state '${target}' has status ${JSON.stringify(e.status)}`, 'ending as FAILURE cannot be expressed in 0.8');
      return { end: true };
    }
    return { transition: target };
  };

  const convertActions = (list: unknown, sp: string, state: Obj): Obj[] => {
    const result: Obj[] = [];
    let timeout: string | undefined;
    arr(list).forEach((a, i) => {
      const ap = `${sp}/actions/${i}`;
      if (!isObj(a)) return;
      if (typeof a.function !== 'string') {
        rep.error(ap, "v0.1 action has no 'function'");
        return;
      }
      if (!functions.has(a.function)) functions.set(a.function, { name: a.function, operation: a.function, type: 'custom' });
      const action: Obj = { name: a.function, functionRef: { refName: a.function } };
      if (a.timeout !== undefined) {
        const t = seconds(a.timeout);
        if (!t) rep.error(`${ap}/timeout`, `timeout must be a positive number of seconds (got ${JSON.stringify(a.timeout)})`);
        else if (timeout && timeout !== t) rep.error(`${ap}/timeout`, 'actions of one state with different timeouts cannot be expressed', 'use one timeout for all actions of the state');
        else timeout = t;
      }
      const policies = arr(a.retry).filter(isObj);
      if (policies.length) {
        const keys = new Set(policies.map((r) => `${r['retry-interval']}|${r['max-retry']}`));
        if (keys.size > 1) rep.error(`${ap}/retry`, 'retry entries with different retry-interval/max-retry on one action cannot be expressed', 'an action has one retry policy in 0.8');
        const r0 = policies[0];
        const retry: Obj = { name: `${state.name}-${a.function}-retry` };
        const delay = seconds(r0['retry-interval']);
        if (r0['retry-interval'] !== undefined && !delay) rep.error(`${ap}/retry/0/retry-interval`, 'retry-interval must be a positive number of seconds');
        if (delay) retry.delay = delay;
        const max = Number(r0['max-retry']);
        if (!Number.isInteger(max) || max < 0) rep.error(`${ap}/retry/0/max-retry`, `max-retry must be a whole number (got ${JSON.stringify(r0['max-retry'])})`);
        retry.maxAttempts = (Number.isInteger(max) ? max : 0) + 1;
        retries.push(retry);
        action.retryRef = retry.name;
        const matched: string[] = [];
        policies.forEach((r, j) => {
          const m = r.match;
          if (typeof m !== 'string') return rep.error(`${ap}/retry/${j}`, "retry entry has no 'match'");
          if (m === 'SYS.MatchAny') return rep.error(`${ap}/retry/${j}/match`, 'SYS.MatchAny cannot be expressed', 'list the errors to retry (0.8 retries only named errors)');
          if (!errors.has(m)) errors.set(m, { name: m, code: m });
          matched.push(m);
          if (typeof r['next-state'] === 'string') {
            state.__onErrors = state.__onErrors ?? [];
            state.__onErrors.push({ errorRef: m, ...flow(r['next-state'], `${ap}/retry/${j}/next-state`) });
          }
        });
        if (matched.length) action.retryableErrors = matched;
      }
      result.push(action);
    });
    if (timeout) state.__actionTimeout = timeout;
    return result;
  };

  const filters = (s: Obj, sp: string, o: Obj) => {
    const jq = (k: string) => {
      const v = s[k];
      if (v === undefined) return undefined;
      const q = typeof v === 'string' ? jsonPathToJq(v) : undefined;
      if (q === undefined) rep.error(`${sp}/${k}`, `${k} ${JSON.stringify(v)} is not a simple JSONPath ($.a.b)`, 'filters, wildcards and slices cannot be expressed');
      return q;
    };
    const input = jq('InputPath');
    const output = jq('OutputPath');
    const result = jq('ResultPath');
    if (input || output) o.stateDataFilter = { ...(input ? { input: `\${ ${input} }` } : {}), ...(output ? { output: `\${ ${output} }` } : {}) };
    if (result && result !== '.') for (const a of arr(o.actions)) a.actionDataFilter = { toStateData: `\${ ${result} }` };
  };

  const condition = (c: Obj, p: string): string | undefined => {
    if (Array.isArray(c.And) || Array.isArray(c.Or)) {
      const k = Array.isArray(c.And) ? 'And' : 'Or';
      if (!c[k].length) return rep.error(`${p}/${k}`, `${k} must not be empty`), undefined;
      const parts = c[k].map((x: unknown, i: number) => (isObj(x) ? condition(x, `${p}/${k}/${i}`) : undefined));
      if (parts.some((x: unknown) => x === undefined)) return undefined;
      return parts.map((x: string) => `(${x})`).join(k === 'And' ? ' and ' : ' or ');
    }
    if (isObj(c.Not)) {
      const inner = condition(c.Not, `${p}/Not`);
      return inner && `(${inner}) | not`;
    }
    const path = typeof c.path === 'string' ? jsonPathToJq(c.path) : undefined;
    if (!path) return rep.error(`${p}/path`, `choice path ${JSON.stringify(c.path)} is not a simple JSONPath ($.a.b)`), undefined;
    const op = String(c.operator ?? '').trim();
    const str = op.startsWith('Str');
    const base = str ? op.slice(3) : op;
    const f = OPS[base];
    if (!f) return rep.error(`${p}/operator`, `unknown operator ${JSON.stringify(c.operator)}`, 'expected EQ, LT, LTEQ, GT, GTEQ, StrEQ, StrLT, StrLTEQ, StrGT, StrGTEQ'), undefined;
    let value: string;
    if (str) value = JSON.stringify(String(c.value));
    else {
      const n = typeof c.value === 'number' ? c.value : Number(c.value);
      if (!Number.isFinite(n)) return rep.error(`${p}/value`, `operator ${op} compares numbers but value is ${JSON.stringify(c.value)}`), undefined;
      value = String(n);
    }
    return f(path, value);
  };

  states.forEach((s, i) => {
    const sp = `/states/${i}`;
    if (s.type === 'END') return;
    const o: Obj = { name: s.name };
    switch (s.type) {
      case 'OPERATION':
        o.type = 'operation';
        o.actionMode = String(s['action-mode'] ?? 'sequential').toLowerCase();
        o.actions = convertActions(s.actions, sp, o);
        Object.assign(o, flow(s['next-state'], `${sp}/next-state`));
        break;
      case 'DELAY': {
        o.type = 'sleep';
        const d = seconds(s['time-delay']);
        if (!d) rep.error(`${sp}/time-delay`, `time-delay must be a positive number of seconds (got ${JSON.stringify(s['time-delay'])})`);
        o.duration = d ?? 'PT0S';
        Object.assign(o, flow(s['next-state'], `${sp}/next-state`));
        break;
      }
      case 'EVENT': {
        o.type = 'event';
        const entries = arr(s.events).filter(isObj);
        const nexts = new Set(entries.map((e) => e['next-state']));
        if (nexts.size > 1) rep.error(`${sp}/events`, `EVENT state '${s.name}': events with different next-state cannot be expressed`, 'use one next-state, then a SWITCH');
        o.onEvents = entries.map((e, j) => {
          const ep = `${sp}/events/${j}`;
          const expr = String(e['event-expression'] ?? '').trim();
          const ors = expr.split(/\s+or\s+/i);
          const ands = expr.split(/\s+and\s+/i);
          let refs: string[];
          if (ors.length > 1 && ands.length > 1) {
            rep.error(`${ep}/event-expression`, `event-expression '${expr}' mixes 'and' and 'or'`, 'cannot be expressed');
            refs = [];
          } else if (ands.length > 1) {
            o.exclusive = false;
            refs = ands;
          } else refs = ors;
          if (e.timeout !== undefined) rep.error(`${ep}/timeout`, 'an EVENT timeout (which ends the workflow) cannot be expressed');
          return { eventRefs: refs.filter(Boolean), actionMode: String(e['action-mode'] ?? 'sequential').toLowerCase(), actions: convertActions(e.actions, ep, o) };
        });
        Object.assign(o, flow([...nexts][0], `${sp}/events/0/next-state`));
        break;
      }
      case 'SWITCH':
        o.type = 'switch';
        o.dataConditions = arr(s.choices)
          .map((c, j) => {
            const cp = `${sp}/choices/${j}`;
            if (!isObj(c)) return undefined;
            const cond = condition(c, cp);
            return cond === undefined ? undefined : { condition: `\${ ${cond} }`, ...flow(c['next-state'], `${cp}/next-state`) };
          })
          .filter(Boolean);
        if (s.default !== undefined) o.defaultCondition = flow(s.default, `${sp}/default`);
        break;
      case 'PARALLEL': {
        o.type = 'parallel';
        o.branches = arr(s.branches).map((b, j) => {
          const bp = `${sp}/branches/${j}`;
          const bs = arr(b?.states).filter(isObj);
          const bad = bs.find((x) => x.type !== 'OPERATION');
          if (bad) rep.error(bp, `PARALLEL branch '${b?.name}': a ${bad.type} state inside a branch cannot be expressed`, 'only OPERATION states in a straight line become branch actions');
          const byName = new Map(bs.map((x) => [x.name, x]));
          let cur = bs.find((x) => x.start === true) ?? bs[0];
          const actions: Obj[] = [];
          const seen = new Set<string>();
          while (cur && !seen.has(cur.name)) {
            seen.add(cur.name);
            if (cur['action-mode'] && String(cur['action-mode']).toLowerCase() === 'parallel' && arr(cur.actions).length > 1) rep.error(bp, `PARALLEL branch '${b?.name}': parallel actions inside a branch cannot be expressed`);
            actions.push(...convertActions(cur.actions, `${bp}/states/${bs.indexOf(cur)}`, o));
            cur = (typeof cur['next-state'] === 'string' ? byName.get(cur['next-state']) : undefined) as Obj;
          }
          if (seen.size < bs.length) rep.error(bp, `PARALLEL branch '${b?.name}': states not on one straight path cannot be expressed`);
          return { name: b?.name ?? `branch${j}`, actions };
        });
        Object.assign(o, flow(s['next-state'], `${sp}/next-state`));
        break;
      }
      default:
        rep.error(`${sp}/type`, `unknown v0.1 state type ${JSON.stringify(s.type)}`, `expected one of ${TYPES.join(', ')}`);
        return;
    }
    filters(s, sp, o);
    if (o.__onErrors) o.onErrors = o.__onErrors;
    delete o.__onErrors;
    if (o.__actionTimeout) o.timeouts = { actionExecTimeout: o.__actionTimeout };
    delete o.__actionTimeout;
    map.mount(`/states/${out.states.length}`, map.main, sp);
    out.states.push(o);
  });
  if (functions.size) out.functions = [...functions.values()];
  if (errors.size) out.errors = [...errors.values()];
  if (retries.length) out.retries = retries;
  return out;
}
