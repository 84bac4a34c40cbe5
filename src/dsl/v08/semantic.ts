/**
 * Semantic validation: everything the JSON schema cannot say. Works defensively on the
 * 0.8-shaped working document (it also runs when the schema found problems, so that one
 * run reports as much as possible).
 */
import { durationProblem } from '../../common/duration';
import { parseCron, parseDateTime, parseInterval, timezoneProblem } from './schedule';
import { fnRefs, jqProblems, oncePerText, referencesSecrets, unwrap } from './expressions';
import { hasUntranslatedJsonPath } from './kogito';
import { HEARTBEAT_METADATA, heartbeatProblem, isLocalCall, LOCAL_BOUND_METADATA, LOCAL_METADATA, localBoundProblem, localProblem, servedByBuiltinAdapters } from '../../common/metadata';
import type { Reporter } from '../findings';
import {
  actionsOf,
  arr,
  durationSlots,
  expressionSlots,
  flowHoldersOf,
  isObj,
  type Obj,
  produceEventsOf,
  statesOf,
  str,
  transitionTarget,
} from './walk';

export interface SemanticOptions {
  /** Ids of workflows that subFlowRef / continueAs may name; unchecked when undefined. */
  knownWorkflows?: string[];
  /** Resources that failed to load (already reported): references into them are not checked. */
  unresolved?: Set<string>;
}

const list = (names: Iterable<string>, max = 8) => {
  const a = [...names];
  return a.length > max ? a.slice(0, max).join(', ') + ', ...' : a.join(', ');
};

export async function checkSemantics(doc: Obj, rep: Reporter, opts: SemanticOptions = {}): Promise<void> {
  const states = statesOf(doc);
  const byName = new Map<string, Obj>();
  const knownWorkflows = opts.knownWorkflows && new Set(opts.knownWorkflows);

  // Unique names.
  for (const { state, pointer } of states) {
    const name = str(state.name);
    if (name === undefined) continue;
    if (byName.has(name)) rep.error(`${pointer}/name`, `duplicate state name '${name}'`, 'state names must be unique');
    else byName.set(name, state);
  }
  const stateNames = [...byName.keys()];
  const known = (n: string) => byName.has(n);
  const hintStates = () => (stateNames.length ? `known states: ${list(stateNames)}` : undefined);

  const uniqueNames = (key: string, what: string) => {
    const seen = new Set<string>();
    arr(doc[key]).forEach((d, i) => {
      const n = isObj(d) ? str(d.name) : undefined;
      if (n === undefined) return;
      if (seen.has(n)) rep.error(`/${key}/${i}/name`, `duplicate ${what} name '${n}'`);
      seen.add(n);
    });
    return seen;
  };
  const functions = new Map<string, Obj>();
  arr(doc.functions).forEach((f) => isObj(f) && typeof f.name === 'string' && !functions.has(f.name) && functions.set(f.name, f));
  uniqueNames('functions', 'function');
  const events = new Map<string, Obj>();
  arr(doc.events).forEach((e) => isObj(e) && typeof e.name === 'string' && !events.has(e.name) && events.set(e.name, e));
  uniqueNames('events', 'event');
  const retries = uniqueNames('retries', 'retry');
  const errors = uniqueNames('errors', 'error');
  const auths = uniqueNames('auth', 'auth');

  if (doc.expressionLang !== undefined && doc.expressionLang !== 'jq') {
    rep.error('/expressionLang', `expression language '${doc.expressionLang}' is not supported`, "only 'jq' is");
  }

  // Start.
  let startName: string | undefined;
  if (typeof doc.start === 'string') startName = doc.start;
  else if (isObj(doc.start) && typeof doc.start.stateName === 'string') startName = doc.start.stateName;
  const startPtr = typeof doc.start === 'string' ? '/start' : '/start/stateName';
  if (startName !== undefined && !known(startName)) rep.error(startPtr, `start state '${startName}' does not exist`, hintStates());
  if (startName === undefined && doc.start === undefined && states.length) startName = str(states[0].state.name);
  if (isObj(doc.start) && doc.start.schedule !== undefined) checkSchedule(doc.start.schedule, startName === undefined ? undefined : byName.get(startName), rep);

  // Transitions, and the graph for compensation / runBefore rules.
  const edges: { from: string; to: string; pointer: string; viaError: boolean }[] = [];
  for (const { state, pointer: sp } of states) {
    const from = str(state.name) ?? '?';
    for (const { holder, pointer: hp, kind } of flowHoldersOf(state, sp)) {
      const t = holder.transition;
      if (t !== undefined) {
        const target = transitionTarget(t, `${hp}/transition`);
        if (target) {
          if (!known(target.name)) rep.error(target.pointer, `transition to unknown state '${target.name}'`, hintStates());
          else edges.push({ from, to: target.name, pointer: target.pointer, viaError: kind === 'onError' });
        }
      }
      if (kind !== 'state' && t !== undefined && holder.end !== undefined) rep.error(hp, `${kind === 'onError' ? 'error handler' : 'condition'} has both 'transition' and 'end'`, 'give exactly one');
      for (const { ev, pointer: ep } of produceEventsOf(holder, hp)) checkEventRef(ev.eventRef, `${ep}/eventRef`, 'produced');
      if (isObj(holder.end) && holder.end.continueAs !== undefined) {
        const ca = holder.end.continueAs;
        const id = typeof ca === 'string' ? ca : isObj(ca) ? str(ca.workflowId) : undefined;
        if (id && knownWorkflows && !knownWorkflows.has(id)) rep.error(`${hp}/end/continueAs`, `continueAs names unknown workflow '${id}'`);
      }
    }

    // Switch states.
    if (state.type === 'switch') {
      const dc = arr(state.dataConditions).length;
      const ec = arr(state.eventConditions).length;
      if (state.defaultCondition === undefined) rep.error(sp, `switch state '${from}' has no defaultCondition`, 'add defaultCondition with a transition or end (what happens when no condition matches)');
      if (dc && ec) rep.error(sp, `switch state '${from}' has both dataConditions and eventConditions`);
      if (!dc && !ec && (state.dataConditions !== undefined || state.eventConditions !== undefined)) rep.error(sp, `switch state '${from}' has no conditions`);
      if (state.transition !== undefined || state.end !== undefined) rep.error(state.transition !== undefined ? `${sp}/transition` : `${sp}/end`, `switch state '${from}' cannot have its own ${state.transition !== undefined ? 'transition' : 'end'}`, 'put transitions/ends on its conditions and defaultCondition');
      arr(state.eventConditions).forEach((c, i) => isObj(c) && checkEventRef(c.eventRef, `${sp}/eventConditions/${i}/eventRef`, 'consumed'));
    } else if (!state.usedForCompensation) {
      if (state.transition !== undefined && state.end !== undefined) rep.error(sp, `state '${from}' has both 'transition' and 'end'`, 'give exactly one');
    }

    // Event references of states.
    arr(state.onEvents).forEach((oe, i) => isObj(oe) && arr(oe.eventRefs).forEach((r, j) => checkEventRef(r, `${sp}/onEvents/${i}/eventRefs/${j}`, 'consumed')));
    if (state.type === 'callback') checkEventRef(state.eventRef, `${sp}/eventRef`, 'consumed');

    // Error handlers.
    arr(state.onErrors).forEach((h, i) => {
      if (!isObj(h)) return;
      const refs = h.errorRef !== undefined ? [[h.errorRef, `${sp}/onErrors/${i}/errorRef`]] : arr(h.errorRefs).map((r, j) => [r, `${sp}/onErrors/${i}/errorRefs/${j}`]);
      for (const [r, p] of refs) if (typeof r === 'string' && !errors.has(r) && !opts.unresolved?.has('errors')) rep.error(p, `error handler refers to unknown error '${r}'`, errors.size ? `defined errors: ${list(errors)}` : 'the workflow defines no errors');
    });

    // Actions.
    for (const { action, pointer: ap } of actionsOf(state, sp)) {
      const fr = action.functionRef;
      const fname = typeof fr === 'string' ? fr : isObj(fr) ? str(fr.refName) : undefined;
      if (fname !== undefined && !functions.has(fname) && !opts.unresolved?.has('functions')) rep.error(typeof fr === 'string' ? `${ap}/functionRef` : `${ap}/functionRef/refName`, `action refers to unknown function '${fname}'`, functions.size ? `defined functions: ${list(functions.keys())}` : 'the workflow defines no functions');
      if (isObj(fr) && fr.selectionSet !== undefined && fname && functions.get(fname)?.type !== 'graphql') rep.error(`${ap}/functionRef/selectionSet`, `'selectionSet' is only for graphql functions ('${fname}' is not)`);
      if (isObj(action.eventRef)) {
        checkEventRef(action.eventRef.triggerEventRef, `${ap}/eventRef/triggerEventRef`, 'produced');
        if (action.eventRef.resultEventRef !== undefined) checkEventRef(action.eventRef.resultEventRef, `${ap}/eventRef/resultEventRef`, 'consumed');
      }
      if (action.subFlowRef !== undefined && opts.knownWorkflows) {
        const sf = action.subFlowRef;
        const id = typeof sf === 'string' ? sf : isObj(sf) ? str(sf.workflowId) : undefined;
        if (id && !knownWorkflows?.has(id)) rep.error(`${ap}/subFlowRef`, `subflow '${id}' is not a known workflow`, `known: ${list(opts.knownWorkflows)}`);
      }
      if (typeof action.retryRef === 'string' && !retries.has(action.retryRef) && !opts.unresolved?.has('retries')) rep.error(`${ap}/retryRef`, `action refers to unknown retry '${action.retryRef}'`, retries.size ? `defined retries: ${list(retries)}` : 'the workflow defines no retries');
      for (const k of ['retryableErrors', 'nonRetryableErrors']) {
        arr(action[k]).forEach((r, i) => typeof r === 'string' && !errors.has(r) && rep.error(`${ap}/${k}/${i}`, `${k} refers to unknown error '${r}'`));
      }
      if (action.retryableErrors !== undefined && action.nonRetryableErrors !== undefined) rep.error(ap, "action has both 'retryableErrors' and 'nonRetryableErrors'", 'retryableErrors is for autoRetries: false, nonRetryableErrors for autoRetries: true');
    }

    // Numbers.
    if (state.type === 'parallel') {
      arr(state.branches).forEach((b, i) => {
        if (isObj(b) && !Array.isArray(b.actions)) rep.error(`${sp}/branches/${i}`, `parallel branch '${b.name ?? i}' of state '${from}' has no actions`, 'a branch must list the actions it runs');
      });
      const n = state.numCompleted;
      const branches = arr(state.branches).length;
      if (state.completionType === 'atLeast') {
        if (n === undefined) rep.error(sp, `parallel state '${from}' has completionType 'atLeast' but no numCompleted`);
        else if (typeof n === 'string' && !/^\d+$/.test(n)) rep.error(`${sp}/numCompleted`, `numCompleted must be a whole number (got "${n}")${/^\s*(\$\{|\.)/.test(n) ? ': an expression evaluated at run time (Kogito) cannot be expressed, the model needs a fixed number' : ''}`, 'an expression is not supported here');
        else if (!Number.isInteger(Number(n)) || Number(n) < 1) rep.error(`${sp}/numCompleted`, `numCompleted must be a whole number >= 1 (got ${JSON.stringify(n)})`);
        else if (Number(n) > branches) rep.error(`${sp}/numCompleted`, `numCompleted ${n} is more than the ${branches} branch${branches === 1 ? '' : 'es'}`);
      } else if (n !== undefined) rep.warn(`${sp}/numCompleted`, "numCompleted is ignored unless completionType is 'atLeast'");
    }
    if (state.type === 'foreach' && state.batchSize !== undefined) {
      const b = state.batchSize;
      if ((typeof b === 'string' && !/^\d+$/.test(b)) || !Number.isInteger(Number(b)) || Number(b) < 1) rep.error(`${sp}/batchSize`, `batchSize must be a whole number >= 1 (got ${JSON.stringify(b)})`);
    }
    if (state.exclusive !== undefined && typeof state.exclusive !== 'boolean') rep.error(`${sp}/exclusive`, `'exclusive' must be true or false (got ${JSON.stringify(state.exclusive)})`);
    if (state.type === 'foreach' && typeof state.iterationParam === 'string' && !/^[A-Za-z_][A-Za-z0-9_]*$/.test(state.iterationParam)) {
      rep.error(`${sp}/iterationParam`, `iterationParam '${state.iterationParam}' is not a valid variable name`, 'it becomes $name / .name inside the iteration: use letters, digits and _');
    }
  }

  // A workflow-wide default for local calls (src/dsl/metadata.ts).
  const localDefault = isObj(doc.metadata) ? doc.metadata[LOCAL_METADATA] : undefined;
  const localDefaultProblem = localDefault === undefined ? undefined : localProblem(localDefault);
  if (localDefaultProblem) rep.error(`/metadata/${LOCAL_METADATA}`, `${LOCAL_METADATA}: ${localDefaultProblem}`, 'true runs the calls of the built-in adapters\' functions as local activities (a function\'s own metadata overrides it)');

  // Function definitions.
  arr(doc.functions).forEach((f, i) => {
    if (!isObj(f)) return;
    if (typeof f.authRef === 'string' && !auths.has(f.authRef)) rep.error(`/functions/${i}/authRef`, `function refers to unknown auth '${f.authRef}'`);
    if (isObj(f.authRef) && typeof f.authRef.resource === 'string' && !auths.has(f.authRef.resource)) rep.error(`/functions/${i}/authRef/resource`, `function refers to unknown auth '${f.authRef.resource}'`);
    const heartbeat = isObj(f.metadata) ? f.metadata[HEARTBEAT_METADATA] : undefined;
    const hbProblem = heartbeat === undefined ? undefined : heartbeatProblem(typeof heartbeat === 'boolean' ? String(heartbeat) : heartbeat);
    if (hbProblem) rep.error(`/functions/${i}/metadata/${HEARTBEAT_METADATA}`, `${HEARTBEAT_METADATA}: ${hbProblem}`, 'the heartbeat timeout of the calls of this function (default PT30S), or "off" for an adapter that cannot heartbeat');
    const bound = isObj(f.metadata) ? f.metadata[LOCAL_BOUND_METADATA] : undefined;
    const boundProblem = bound === undefined ? undefined : localBoundProblem(bound);
    if (boundProblem) rep.error(`/functions/${i}/metadata/${LOCAL_BOUND_METADATA}`, `${LOCAL_BOUND_METADATA}: ${boundProblem}`, 'how long a local call without actionExecTimeout runs locally before it is made as an activity (default PT30S), or "off"');
    const local = isObj(f.metadata) ? f.metadata[LOCAL_METADATA] : undefined;
    if (local !== undefined) {
      const lp = `/functions/${i}/metadata/${LOCAL_METADATA}`;
      const problem = localProblem(local);
      if (problem) rep.error(lp, `${LOCAL_METADATA}: ${problem}`, 'true runs the calls as local activities on the interpreter worker');
      else if (isLocalCall(f.metadata as Obj) && !servedByBuiltinAdapters(f)) {
        rep.error(lp, `${LOCAL_METADATA}: only calls served by swflow's built-in adapters (rest, graphql, odata, rpc, asyncapi, without metadata.worker) can run locally`, 'the interpreter worker runs the built-in adapters; a custom adapter or another worker\'s queue is served elsewhere');
      }
    }
    protocolFunction(f, `/functions/${i}`, rep);
  });

  // Compensation rules.
  const compTargets = new Set<string>();
  for (const { state, pointer: sp } of states) {
    const cb = str(state.compensatedBy);
    if (cb === undefined) continue;
    const target = byName.get(cb);
    const p = `${sp}/compensatedBy`;
    if (!target) {
      rep.error(p, `compensatedBy refers to unknown state '${cb}'`, hintStates());
      continue;
    }
    compTargets.add(cb);
    if (state.usedForCompensation === true) rep.error(p, `compensation state '${state.name}' cannot itself be compensated (compensation is not recursive)`);
    if (target.usedForCompensation !== true) rep.error(p, `state '${cb}' compensates '${state.name}' but is not marked usedForCompensation: true`);
    if (target.type === 'event') rep.error(p, `state '${cb}' is an event state and cannot be used for compensation`);
  }
  for (const { state, pointer: sp } of states) {
    if (state.usedForCompensation !== true) continue;
    if (state.compensatedBy !== undefined && !compTargets.has(String(state.name))) {
      /* reported above when targeted; a compensation state with compensatedBy is wrong anyway */
    }
    if (state.type === 'event') rep.error(`${sp}/type`, `compensation state '${state.name}' cannot be an event state`);
    if (state.end !== undefined) rep.warn(`${sp}/end`, `compensation state '${state.name}' has an 'end', which the spec says is ignored`);
    if (state.name === startName) rep.error(typeof doc.start === 'string' || isObj(doc.start) ? startPtr : `${sp}/name`, `the start state '${state.name}' is marked usedForCompensation`, 'compensation states must not be part of the main control flow');
  }
  const isComp = (n: string) => byName.get(n)?.usedForCompensation === true;
  for (const e of edges) {
    if (isComp(e.to) && !isComp(e.from)) rep.error(e.pointer, `state '${e.from}' transitions to '${e.to}', which is used for compensation`, 'compensation states run only through compensatedBy');
    if (isComp(e.from) && !isComp(e.to)) rep.error(e.pointer, `compensation state '${e.from}' transitions to '${e.to}', which is not used for compensation`);
  }

  // runBefore rules.
  const wet = isObj(doc.timeouts) ? doc.timeouts.workflowExecTimeout : undefined;
  const rb = isObj(wet) ? str(wet.runBefore) : undefined;
  if (rb !== undefined) {
    const p = '/timeouts/workflowExecTimeout/runBefore';
    if (!known(rb)) rep.error(p, `runBefore refers to unknown state '${rb}'`, hintStates());
    else {
      // Everything reachable from runBefore is its sub-flow.
      const sub = reach(rb, edges);
      if (isComp(rb)) rep.error(p, `runBefore state '${rb}' is marked usedForCompensation`);
      for (const e of edges) {
        if (sub.has(e.to) && !sub.has(e.from)) rep.error(e.pointer, `state '${e.from}' transitions to '${e.to}', which runs only before the workflow times out (runBefore)`);
        if (sub.has(e.from) && isComp(e.to)) rep.error(e.pointer, `runBefore flow transitions to compensation state '${e.to}'`);
      }
      if (startName !== undefined && sub.has(startName)) rep.error(p, `runBefore state '${rb}' is reachable from the start state`);
      const ends = [...sub].some((n) => {
        const s = byName.get(n)!;
        return s.end !== undefined || (s.type === 'switch' && flowHoldersOf(s, '').some((h) => h.holder.end !== undefined));
      });
      if (!ends) rep.error(p, `the runBefore flow starting at '${rb}' never ends`, 'one of its states must define end');
    }
  }

  // Durations.
  for (const slot of durationSlots(doc)) {
    const problem = durationProblem(slot.value);
    if (problem) rep.error(slot.pointer, `invalid duration: ${problem}`);
  }

  // Expressions.
  const exprFunctions = [...functions.values()].filter((f) => f.type === 'expression').map((f) => String(f.name));
  const exprOps: Record<string, string> = Object.fromEntries(exprFunctions.map((n) => [n, String(functions.get(n)?.operation ?? '')]));
  const isJq = (doc.expressionLang === undefined || doc.expressionLang === 'jq') && !hasUntranslatedJsonPath(doc);
  const slots = [...expressionSlots(doc)];
  // Every distinct text checked once, together (one jq compile per group of valid expressions).
  const problems = isJq ? await jqProblems(slots.map((s) => s.text)) : undefined;
  const secretsIn = oncePerText((text) => referencesSecrets(text, exprOps));
  for (const slot of slots) {
    const jq = unwrap(slot.text);
    const problem = problems?.get(slot.text);
    if (problem) rep.error(slot.pointer, `expression does not compile: ${problem.split('\n')[0].trim()}: ${JSON.stringify(slot.text)}`);
    for (const fn of fnRefs(jq)) {
      const f = functions.get(fn);
      if (!f) rep.error(slot.pointer, `expression calls unknown function 'fn:${fn}'`, exprFunctions.length ? `expression functions: ${list(exprFunctions)}` : 'define it in functions with type: expression');
      else if (f.type !== 'expression') rep.error(slot.pointer, `expression calls 'fn:${fn}', which is not an expression function (type ${f.type ?? 'rest'})`);
    }
    if (!slot.inArguments && secretsIn(slot.text)) {
      rep.error(slot.pointer, `$SECRETS used outside function arguments: ${JSON.stringify(slot.text)}`, 'secret values may only be passed as function arguments, so they never enter workflow data or history');
    }
  }
  // Expression functions calling themselves through fn: would loop forever.
  for (const name of exprFunctions) {
    const op = str(functions.get(name)?.operation);
    if (op && fnRefs(unwrap(op)).includes(name)) rep.error(`/functions/${[...arr(doc.functions)].findIndex((f) => f?.name === name)}/operation`, `expression function '${name}' calls itself`);
  }

  function checkEventRef(ref: unknown, p: string, kind: 'consumed' | 'produced'): void {
    if (typeof ref !== 'string' || opts.unresolved?.has('events')) return;
    const e = events.get(ref);
    if (!e) {
      rep.error(p, `refers to unknown event '${ref}'`, events.size ? `defined events: ${list(events.keys())}` : 'the workflow defines no events');
      return;
    }
    const k = e.kind ?? 'consumed';
    if (k !== kind) rep.error(p, `event '${ref}' is ${k === 'produced' ? 'produced' : 'consumed'} but is used here as a${kind === 'produced' ? ' produced' : ' consumed'} event`, `set kind: ${kind} on event '${ref}'`);
  }
}

/**
 * start.schedule (spec 0.8, "Schedule Definition"): its parts. On an event start state the
 * schedule is not used (src/client/schedules.ts makes no Temporal Schedule for it): instances
 * start from their events, through the gateway, as without a schedule. The spec allows the
 * document (its car auction example is one) but says scheduling an event start state "would mean
 * that there needs to be an event service that issues the needed events", which swflow does not
 * have: a warning says so, and problems of the unused schedule are warnings too.
 */
function checkSchedule(schedule: unknown, start: Obj | undefined, rep: Reporter): void {
  const p = '/start/schedule';
  const unused = start?.type === 'event';
  const report = (pointer: string, message: string) => (unused ? rep.warn(pointer, `${message} (the schedule is not used)`) : rep.error(pointer, message));
  if (unused) {
    rep.warn(
      p,
      `start.schedule is not used: the start state '${start.name}' is an event state, so instances start when the event gateway receives its event(s), as without a schedule; swflow makes no Temporal Schedule for this workflow (spec 0.8, Start Definition: scheduling an event start state "would mean that there needs to be an event service that issues the needed events at the defined times")`,
      'to start runs on a timer, start with a non-event state (a scheduled run then waits for the event in a later state), or schedule a workflow that produces the event',
    );
  }
  const sc = typeof schedule === 'string' ? { interval: schedule } : isObj(schedule) ? schedule : undefined;
  if (!sc) return;
  const ip = typeof schedule === 'string' ? p : `${p}/interval`;
  const tz = typeof sc.timezone === 'string' ? sc.timezone : undefined;
  if (tz !== undefined) {
    const problem = timezoneProblem(tz);
    if (problem) report(`${p}/timezone`, problem);
  }
  const zone = tz !== undefined && !timezoneProblem(tz) ? tz : undefined;
  if (sc.interval !== undefined) {
    const r = parseInterval(sc.interval, zone);
    if (r.problem) report(ip, `invalid schedule interval: ${r.problem}`);
  }
  const cron = sc.cron;
  const expression = typeof cron === 'string' ? cron : isObj(cron) ? cron.expression : undefined;
  const cp = typeof cron === 'string' ? `${p}/cron` : `${p}/cron/expression`;
  if (expression !== undefined) {
    const r = parseCron(expression);
    if (r.problem) report(cp, `invalid cron expression: ${r.problem}`);
  }
  if (isObj(cron) && cron.validUntil !== undefined) {
    const r = typeof cron.validUntil === 'string' ? parseDateTime(cron.validUntil, zone) : { problem: 'validUntil must be an ISO 8601 date-time' };
    if (r.problem) report(`${p}/cron/validUntil`, `invalid validUntil: ${r.problem}`);
  }
}

function reach(from: string, edges: { from: string; to: string }[]): Set<string> {
  const next = new Map<string, string[]>();
  for (const e of edges) {
    const list = next.get(e.from);
    if (list) list.push(e.to);
    else next.set(e.from, [e.to]);
  }
  const seen = new Set([from]);
  const todo = [from];
  while (todo.length) {
    for (const to of next.get(todo.pop()!) ?? []) if (!seen.has(to)) {
      seen.add(to);
      todo.push(to);
    }
  }
  return seen;
}

/** The operation formats the spec gives rpc and asyncapi functions, and what the built-in rpc adapter needs besides (adapters/README.md). */
function protocolFunction(f: Obj, pointer: string, rep: Reporter): void {
  const parts = typeof f.operation === 'string' ? f.operation.split('#') : [];
  if (f.type === 'rpc' && (parts.length !== 3 || parts.some((p) => !p))) rep.error(`${pointer}/operation`, `rpc operation ${JSON.stringify(f.operation)} is not "<proto file URI>#<service>#<method>"`);
  if (f.type === 'asyncapi' && (parts.length < 2 || !parts[0] || !parts.at(-1))) rep.error(`${pointer}/operation`, `asyncapi operation ${JSON.stringify(f.operation)} is not "<AsyncAPI document URI>#<operationId>"`);
  const metadata = isObj(f.metadata) ? f.metadata : {};
  if (f.type === 'rpc' && metadata.address === undefined && metadata.worker === undefined) {
    rep.warn(`${pointer}`, `rpc function '${String(f.name)}' has no metadata.address: the built-in rpc adapter needs the gRPC service's "host:port" there`, 'a proto file does not say where its service runs');
  }
}
