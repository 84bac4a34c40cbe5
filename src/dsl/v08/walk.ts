/**
 * Defensive helpers to walk a (0.8-shaped, possibly invalid) definition document: every
 * place that holds a state reference, an expression, a duration... with its JSON pointer.
 */
import { joinPointer } from '../source';

export type Obj = Record<string, any>;

export const isObj = (v: unknown): v is Obj => !!v && typeof v === 'object' && !Array.isArray(v);
export const arr = (v: unknown): any[] => (Array.isArray(v) ? v : []);
export const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
export const ptr = (base: string, ...segs: (string | number)[]) => base + joinPointer(...segs);

export interface Located<T> {
  pointer: string;
  value: T;
  parent: Obj;
  key: string;
}

/** Every state, with its pointer. */
export function statesOf(doc: Obj): { state: Obj; pointer: string; index: number }[] {
  return arr(doc.states)
    .map((s, i) => ({ state: s, pointer: `/states/${i}`, index: i }))
    .filter((x) => isObj(x.state));
}

/** Every action of a state (operation, event onEvents, parallel branches, foreach, callback). */
export function actionsOf(state: Obj, sp: string): { action: Obj; pointer: string }[] {
  const out: { action: Obj; pointer: string }[] = [];
  const add = (list: unknown, base: string) => arr(list).forEach((a, i) => isObj(a) && out.push({ action: a, pointer: `${base}/${i}` }));
  add(state.actions, `${sp}/actions`);
  arr(state.onEvents).forEach((oe, i) => isObj(oe) && add(oe.actions, `${sp}/onEvents/${i}/actions`));
  arr(state.branches).forEach((b, i) => isObj(b) && add(b.actions, `${sp}/branches/${i}/actions`));
  if (isObj(state.action)) out.push({ action: state.action, pointer: `${sp}/action` });
  return out;
}

/** transition / end holders of a state: the state itself, data/event conditions, default, error handlers. */
export function flowHoldersOf(state: Obj, sp: string): { holder: Obj; pointer: string; kind: 'state' | 'condition' | 'default' | 'onError' }[] {
  const out: { holder: Obj; pointer: string; kind: 'state' | 'condition' | 'default' | 'onError' }[] = [{ holder: state, pointer: sp, kind: 'state' }];
  arr(state.dataConditions).forEach((c, i) => isObj(c) && out.push({ holder: c, pointer: `${sp}/dataConditions/${i}`, kind: 'condition' }));
  arr(state.eventConditions).forEach((c, i) => isObj(c) && out.push({ holder: c, pointer: `${sp}/eventConditions/${i}`, kind: 'condition' }));
  if (isObj(state.defaultCondition)) out.push({ holder: state.defaultCondition, pointer: `${sp}/defaultCondition`, kind: 'default' });
  arr(state.onErrors).forEach((c, i) => isObj(c) && out.push({ holder: c, pointer: `${sp}/onErrors/${i}`, kind: 'onError' }));
  return out;
}

/** The target state name of a transition (string or object form), with the pointer of the name. */
export function transitionTarget(t: unknown, p: string): { name: string; pointer: string } | undefined {
  if (typeof t === 'string') return { name: t, pointer: p };
  if (isObj(t) && typeof t.nextState === 'string') return { name: t.nextState, pointer: `${p}/nextState` };
  return undefined;
}

/** produceEvents lists of transitions and ends of a holder. */
export function produceEventsOf(holder: Obj, hp: string): { ev: Obj; pointer: string }[] {
  const out: { ev: Obj; pointer: string }[] = [];
  for (const k of ['transition', 'end']) {
    const t = holder[k];
    if (isObj(t)) arr(t.produceEvents).forEach((e, i) => isObj(e) && out.push({ ev: e, pointer: `${hp}/${k}/produceEvents/${i}` }));
  }
  return out;
}

/** Places that hold an ISO 8601 duration: [pointer, container, key]. */
export function durationSlots(doc: Obj): Located<unknown>[] {
  const out: Located<unknown>[] = [];
  const slot = (parent: unknown, key: string, pointer: string) => {
    if (isObj(parent) && parent[key] !== undefined) out.push({ pointer: ptr(pointer, key), value: parent[key], parent, key });
  };
  const timeouts = (t: unknown, p: string) => {
    if (!isObj(t)) return;
    if (isObj(t.workflowExecTimeout)) slot(t.workflowExecTimeout, 'duration', `${p}/workflowExecTimeout`);
    else slot(t, 'workflowExecTimeout', p);
    if (isObj(t.stateExecTimeout)) {
      slot(t.stateExecTimeout, 'single', `${p}/stateExecTimeout`);
      slot(t.stateExecTimeout, 'total', `${p}/stateExecTimeout`);
    } else slot(t, 'stateExecTimeout', p);
    for (const k of ['actionExecTimeout', 'branchExecTimeout', 'eventTimeout']) slot(t, k, p);
  };
  timeouts(doc.timeouts, '/timeouts');
  arr(doc.retries).forEach((r, i) => {
    for (const k of ['delay', 'maxDelay', 'increment']) slot(r, k, `/retries/${i}`);
    if (isObj(r) && typeof r.jitter === 'string') slot(r, 'jitter', `/retries/${i}`);
  });
  for (const { state, pointer: sp } of statesOf(doc)) {
    timeouts(state.timeouts, `${sp}/timeouts`);
    if (state.type === 'sleep') slot(state, 'duration', sp);
    arr(state.branches).forEach((b, i) => isObj(b) && timeouts(b.timeouts, `${sp}/branches/${i}/timeouts`));
    for (const { action, pointer: ap } of actionsOf(state, sp)) {
      if (isObj(action.sleep)) {
        slot(action.sleep, 'before', `${ap}/sleep`);
        slot(action.sleep, 'after', `${ap}/sleep`);
      }
      if (isObj(action.eventRef)) {
        slot(action.eventRef, 'resultEventTimeout', `${ap}/eventRef`);
        slot(action.eventRef, 'consumeEventTimeout', `${ap}/eventRef`);
      }
    }
    for (const { holder, pointer: hp } of flowHoldersOf(state, sp)) {
      const e = holder.end;
      if (isObj(e) && isObj(e.continueAs)) timeouts({ workflowExecTimeout: e.continueAs.workflowExecTimeout }, `${hp}/end/continueAs`);
    }
  }
  return out.filter((s) => typeof s.value === 'string');
}

/**
 * Every expression of the document: `always` fields are expressions whether or not they are
 * wrapped in `${ }`; elsewhere (arguments, data) strings that contain `${ ... }`.
 * `inArguments` marks function arguments (the only place $SECRETS may appear).
 */
export interface ExprSlot {
  pointer: string;
  text: string;
  inArguments: boolean;
}

export function expressionSlots(doc: Obj): ExprSlot[] {
  const out: ExprSlot[] = [];
  const always = (parent: unknown, key: string, p: string, inArguments = false) => {
    if (isObj(parent) && typeof parent[key] === 'string') out.push({ pointer: ptr(p, key), text: parent[key], inArguments });
  };
  const embedded = (v: unknown, p: string, inArguments: boolean) => {
    if (typeof v === 'string') {
      if (v.includes('${')) out.push({ pointer: p, text: v, inArguments });
    } else if (Array.isArray(v)) v.forEach((x, i) => embedded(x, `${p}/${i}`, inArguments));
    else if (isObj(v)) for (const [k, x] of Object.entries(v)) embedded(x, ptr(p, k), inArguments);
  };
  const stringOrData = (parent: unknown, key: string, p: string) => {
    if (!isObj(parent)) return;
    if (typeof parent[key] === 'string') always(parent, key, p);
    else if (parent[key] !== undefined) embedded(parent[key], ptr(p, key), false);
  };
  // (An expression function's own $SECRETS use is judged where it is called.)
  arr(doc.functions).forEach((f, i) => isObj(f) && f.type === 'expression' && always(f, 'operation', `/functions/${i}`, true));
  for (const { state, pointer: sp } of statesOf(doc)) {
    if (isObj(state.stateDataFilter)) for (const k of ['input', 'output']) always(state.stateDataFilter, k, `${sp}/stateDataFilter`);
    for (const k of ['inputCollection', 'outputCollection']) always(state, k, sp);
    arr(state.dataConditions).forEach((c, i) => always(c, 'condition', `${sp}/dataConditions/${i}`));
    const edf = (f: unknown, p: string) => isObj(f) && ['data', 'toStateData'].forEach((k) => always(f, k, p));
    arr(state.onEvents).forEach((oe, i) => isObj(oe) && edf(oe.eventDataFilter, `${sp}/onEvents/${i}/eventDataFilter`));
    arr(state.eventConditions).forEach((c, i) => isObj(c) && edf(c.eventDataFilter, `${sp}/eventConditions/${i}/eventDataFilter`));
    edf(state.eventDataFilter, `${sp}/eventDataFilter`);
    for (const { action, pointer: ap } of actionsOf(state, sp)) {
      always(action, 'condition', ap);
      if (isObj(action.actionDataFilter)) for (const k of ['fromStateData', 'results', 'toStateData']) always(action.actionDataFilter, k, `${ap}/actionDataFilter`);
      if (isObj(action.functionRef) && action.functionRef.arguments !== undefined) embedded(action.functionRef.arguments, `${ap}/functionRef/arguments`, true);
      if (isObj(action.eventRef)) {
        stringOrData(action.eventRef, 'data', `${ap}/eventRef`);
        embedded(action.eventRef.contextAttributes, `${ap}/eventRef/contextAttributes`, false);
      }
    }
    for (const { holder, pointer: hp } of flowHoldersOf(state, sp)) {
      for (const { ev, pointer: ep } of produceEventsOf(holder, hp)) {
        stringOrData(ev, 'data', ep);
        embedded(ev.contextAttributes, `${ep}/contextAttributes`, false);
      }
      if (isObj(holder.end) && isObj(holder.end.continueAs)) stringOrData(holder.end.continueAs, 'data', `${hp}/end/continueAs`);
    }
  }
  return out;
}
