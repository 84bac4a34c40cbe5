/**
 * Normalization of a validated (0.8-shaped, leniency-fixed) document into the canonical
 * model: shortcuts expanded, defaults explicit, external resources already inlined.
 * Only called when validation found no error, so shapes can be trusted.
 */
import type {
  ActionDataFilterDef,
  ActionDef,
  AuthDef,
  BranchDef,
  DataSchemaDef,
  Dialect,
  EndDef,
  ErrorDef,
  ErrorHandlerDef,
  EventDataFilterDef,
  EventDef,
  FunctionDef,
  Json,
  ProduceEventDef,
  RetryDef,
  StartDef,
  StateDef,
  StateTimeoutsDef,
  TimeoutsDef,
  TransitionDef,
  WorkflowDef,
} from '../../common/model';
import { isObj, type Obj } from './walk';

export interface NormalizeInput {
  doc: Obj;
  dialect: Dialect;
  /** specVersion as written ('0.8' when missing). */
  specVersion: string;
  dataInputSchema?: DataSchemaDef;
  dataOutputSchema?: DataSchemaDef;
}

const clean = <T extends object>(o: T): T => {
  for (const k of Object.keys(o) as (keyof T)[]) if (o[k] === undefined) delete o[k];
  return o;
};

const json = (v: unknown): Json => JSON.parse(JSON.stringify(v)) as Json;

function metadata(m: unknown): Record<string, string> {
  return isObj(m) ? Object.fromEntries(Object.entries(m).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)])) : {};
}

function num(v: unknown): number | undefined {
  if (v === undefined || v === null || v === '') return undefined;
  const n = typeof v === 'number' ? v : Number(v);
  return Number.isFinite(n) ? n : undefined;
}

function produceEvents(list: unknown): ProduceEventDef[] {
  return (Array.isArray(list) ? list : []).map((e: Obj) =>
    clean({ eventRef: e.eventRef, data: e.data === undefined ? undefined : json(e.data), contextAttributes: isObj(e.contextAttributes) ? (json(e.contextAttributes) as Record<string, string>) : undefined }),
  );
}

export function transition(t: unknown): TransitionDef | undefined {
  if (t === undefined) return undefined;
  if (typeof t === 'string') return { nextState: t, produceEvents: [], compensate: false };
  const o = t as Obj;
  return { nextState: o.nextState, produceEvents: produceEvents(o.produceEvents), compensate: o.compensate === true };
}

function wfExecTimeout(v: unknown): { duration: string; interrupt: boolean; runBefore?: string } | undefined {
  if (v === undefined) return undefined;
  // Spec 0.8 "Workflow Timeouts": interrupt "Default is false" (the JSON schema says true; the
  // prose is the spec's word). See docs/spec-defaults.md for how an event wait ends anyway.
  if (typeof v === 'string') return { duration: v, interrupt: false };
  const o = v as Obj;
  return clean({ duration: o.duration, interrupt: o.interrupt === true, runBefore: o.runBefore });
}

export function end(e: unknown): EndDef | undefined {
  if (e === undefined || e === false) return undefined;
  if (e === true) return { terminate: false, produceEvents: [], compensate: false };
  const o = e as Obj;
  const out: EndDef = { terminate: o.terminate === true, produceEvents: produceEvents(o.produceEvents), compensate: o.compensate === true };
  if (o.continueAs !== undefined) {
    const c = o.continueAs;
    out.continueAs =
      typeof c === 'string'
        ? { workflowId: c }
        : clean({ workflowId: c.workflowId, version: c.version, data: c.data === undefined ? undefined : json(c.data), workflowExecTimeout: wfExecTimeout(c.workflowExecTimeout) });
  }
  return out;
}

function stateExec(v: unknown): { single?: string; total: string } | undefined {
  if (v === undefined) return undefined;
  if (typeof v === 'string') return { total: v };
  const o = v as Obj;
  return clean({ single: o.single, total: o.total });
}

function stateTimeouts(t: unknown): StateTimeoutsDef | undefined {
  if (!isObj(t)) return undefined;
  const out = clean({ stateExecTimeout: stateExec(t.stateExecTimeout), actionExecTimeout: t.actionExecTimeout, branchExecTimeout: t.branchExecTimeout, eventTimeout: t.eventTimeout });
  return Object.keys(out).length ? out : undefined;
}

function eventDataFilter(f: unknown): EventDataFilterDef {
  const o = isObj(f) ? f : {};
  return clean({ useData: o.useData !== false, data: o.data, toStateData: o.toStateData });
}

function actionDataFilter(f: unknown): ActionDataFilterDef {
  const o = isObj(f) ? f : {};
  return clean({ fromStateData: o.fromStateData, useResults: o.useResults !== false, results: o.results, toStateData: o.toStateData });
}

function action(a: Obj): ActionDef {
  const out: ActionDef = { actionDataFilter: actionDataFilter(a.actionDataFilter) };
  if (a.id !== undefined) out.id = a.id;
  if (a.name !== undefined) out.name = a.name;
  const fr = a.functionRef;
  if (fr !== undefined) {
    out.functionRef =
      typeof fr === 'string'
        ? { refName: fr, invoke: 'sync' }
        : clean({ refName: fr.refName, arguments: fr.arguments === undefined ? undefined : json(fr.arguments), selectionSet: fr.selectionSet, invoke: fr.invoke ?? 'sync' });
  }
  if (isObj(a.eventRef)) {
    const e = a.eventRef;
    out.eventRef = clean({
      produceEventRef: e.triggerEventRef,
      consumeEventRef: e.resultEventRef,
      consumeEventTimeout: e.resultEventTimeout,
      data: e.data === undefined ? undefined : json(e.data),
      contextAttributes: isObj(e.contextAttributes) ? (json(e.contextAttributes) as Record<string, string>) : undefined,
      invoke: e.invoke ?? 'sync',
    });
  }
  const sf = a.subFlowRef;
  if (sf !== undefined) {
    out.subFlowRef =
      typeof sf === 'string'
        ? { workflowId: sf, invoke: 'sync', onParentComplete: 'terminate' }
        : clean({ workflowId: sf.workflowId, version: sf.version, invoke: sf.invoke ?? 'sync', onParentComplete: sf.onParentComplete ?? 'terminate' });
  }
  if (a.retryRef !== undefined) out.retryRef = a.retryRef;
  if (a.nonRetryableErrors !== undefined) out.nonRetryableErrors = [...a.nonRetryableErrors];
  if (a.retryableErrors !== undefined) out.retryableErrors = [...a.retryableErrors];
  if (isObj(a.sleep)) out.sleep = clean({ before: a.sleep.before, after: a.sleep.after });
  if (a.condition !== undefined) out.condition = a.condition;
  return out;
}

function onErrors(list: unknown): ErrorHandlerDef[] {
  return (Array.isArray(list) ? list : []).map((h: Obj) =>
    clean({ errorRefs: h.errorRef !== undefined ? [h.errorRef] : [...h.errorRefs], transition: transition(h.transition), end: end(h.end) }),
  );
}

function state(s: Obj): StateDef {
  const comp = s.usedForCompensation === true;
  const base = clean({
    name: s.name as string,
    id: s.id as string | undefined,
    stateDataFilter: isObj(s.stateDataFilter) ? clean({ input: s.stateDataFilter.input, output: s.stateDataFilter.output }) : undefined,
    transition: transition(s.transition),
    // The spec: an end on a compensation state is ignored (validation warned).
    end: comp ? undefined : end(s.end),
    onErrors: onErrors(s.onErrors),
    compensatedBy: s.compensatedBy as string | undefined,
    usedForCompensation: comp,
    timeouts: stateTimeouts(s.timeouts),
    metadata: metadata(s.metadata),
  });
  const actions = (list: unknown) => (Array.isArray(list) ? list : []).map(action);
  switch (s.type) {
    case 'event':
      return {
        ...base,
        type: 'event',
        exclusive: s.exclusive !== false,
        onEvents: (s.onEvents as Obj[]).map((oe) => ({ eventRefs: [...oe.eventRefs], actionMode: oe.actionMode ?? 'sequential', actions: actions(oe.actions), eventDataFilter: eventDataFilter(oe.eventDataFilter) })),
      };
    case 'operation':
      return { ...base, type: 'operation', actionMode: s.actionMode ?? 'sequential', actions: actions(s.actions) };
    case 'switch':
      return {
        ...base,
        type: 'switch',
        dataConditions: ((s.dataConditions ?? []) as Obj[]).map((c) => clean({ name: c.name, condition: c.condition, transition: transition(c.transition), end: end(c.end), metadata: metadata(c.metadata) })),
        eventConditions: ((s.eventConditions ?? []) as Obj[]).map((c) =>
          clean({ name: c.name, eventRef: c.eventRef, eventDataFilter: eventDataFilter(c.eventDataFilter), transition: transition(c.transition), end: end(c.end), metadata: metadata(c.metadata) }),
        ),
        defaultCondition: clean({ transition: transition(s.defaultCondition.transition), end: end(s.defaultCondition.end) }),
      };
    case 'sleep':
      return { ...base, type: 'sleep', duration: s.duration };
    case 'parallel': {
      const branches: BranchDef[] = (s.branches as Obj[]).map((b) => {
        const t = isObj(b.timeouts) ? clean({ actionExecTimeout: b.timeouts.actionExecTimeout, branchExecTimeout: b.timeouts.branchExecTimeout }) : undefined;
        return clean({ name: b.name, actions: actions(b.actions), timeouts: t && Object.keys(t).length ? t : undefined });
      });
      const atLeast = s.completionType === 'atLeast';
      return clean({ ...base, type: 'parallel' as const, branches, completionType: atLeast ? ('atLeast' as const) : ('allOf' as const), numCompleted: atLeast ? num(s.numCompleted) : undefined });
    }
    case 'inject':
      return { ...base, type: 'inject', data: json(s.data ?? {}) };
    case 'foreach':
      return clean({
        ...base,
        type: 'foreach' as const,
        inputCollection: s.inputCollection,
        outputCollection: s.outputCollection,
        iterationParam: s.iterationParam ?? 'item',
        batchSize: num(s.batchSize),
        actions: actions(s.actions),
        mode: s.mode === 'sequential' ? ('sequential' as const) : ('parallel' as const),
      });
    case 'callback':
      return { ...base, type: 'callback', action: action(s.action), eventRef: s.eventRef, eventDataFilter: eventDataFilter(s.eventDataFilter) };
    default:
      throw new Error(`normalize: unexpected state type ${String(s.type)}`);
  }
}

export function normalize(input: NormalizeInput): WorkflowDef {
  const d = input.doc;
  const firstState = (d.states as Obj[])[0]?.name as string;
  let start: StartDef;
  if (d.start === undefined) start = { stateName: firstState };
  else if (typeof d.start === 'string') start = { stateName: d.start };
  else {
    start = { stateName: d.start.stateName };
    const sc = d.start.schedule;
    if (typeof sc === 'string') start.schedule = { interval: sc };
    else if (isObj(sc)) {
      start.schedule = clean({
        interval: sc.interval,
        cron: sc.cron === undefined ? undefined : typeof sc.cron === 'string' ? { expression: sc.cron } : clean({ expression: sc.cron.expression, validUntil: sc.cron.validUntil }),
        timezone: sc.timezone,
      });
    }
  }

  let timeouts: TimeoutsDef | undefined;
  if (isObj(d.timeouts)) {
    const t = d.timeouts;
    timeouts = clean({
      workflowExecTimeout: wfExecTimeout(t.workflowExecTimeout),
      stateExecTimeout: stateExec(t.stateExecTimeout),
      actionExecTimeout: t.actionExecTimeout,
      branchExecTimeout: t.branchExecTimeout,
      eventTimeout: t.eventTimeout,
    });
  }

  const functions: FunctionDef[] = ((d.functions ?? []) as Obj[]).map((f) => {
    const out: FunctionDef = { name: f.name, operation: '', type: f.type ?? 'rest', metadata: metadata(f.metadata) };
    if (isObj(f.operation)) {
      out.http = json(f.operation) as FunctionDef['http'];
      out.operation = String(f.operation.uri ?? '');
    } else out.operation = f.operation;
    if (f.authRef !== undefined) out.authRef = typeof f.authRef === 'string' ? f.authRef : clean({ resource: f.authRef.resource, invocation: f.authRef.invocation });
    return out;
  });

  const events: EventDef[] = ((d.events ?? []) as Obj[]).map((e) =>
    clean({
      name: e.name,
      source: e.source,
      type: e.type,
      kind: e.kind === 'produced' ? ('produced' as const) : ('consumed' as const),
      correlation: ((e.correlation ?? []) as Obj[]).map((c) => clean({ contextAttributeName: c.contextAttributeName, contextAttributeValue: c.contextAttributeValue })),
      dataOnly: e.dataOnly !== false,
      metadata: metadata(e.metadata),
    }),
  );

  const retries: RetryDef[] = ((d.retries ?? []) as Obj[]).map((r) =>
    clean({
      name: r.name,
      delay: r.delay,
      maxDelay: r.maxDelay,
      increment: r.increment,
      multiplier: num(r.multiplier),
      maxAttempts: r.__unlimited ? undefined : num(r.maxAttempts),
      jitter: typeof r.jitter === 'string' && /^P/i.test(r.jitter) ? r.jitter : num(r.jitter),
    }),
  );

  const errors: ErrorDef[] = ((d.errors ?? []) as Obj[]).map((e) => clean({ name: e.name, code: e.code === undefined ? undefined : String(e.code), description: e.description }));

  const auth: AuthDef[] = ((d.auth ?? []) as Obj[]).map((a) => ({
    name: a.name,
    scheme: a.scheme ?? 'basic',
    properties: isObj(a.properties) ? (json(a.properties) as Record<string, Json>) : { ref: a.properties },
  }));

  return clean({
    id: (d.id ?? d.key) as string,
    key: d.key,
    name: d.name,
    description: d.description,
    version: d.version,
    specVersion: input.specVersion,
    dialect: input.dialect,
    annotations: Array.isArray(d.annotations) ? [...d.annotations] : [],
    metadata: metadata(d.metadata),
    start,
    expressionLang: d.expressionLang ?? 'jq',
    dataInputSchema: input.dataInputSchema,
    dataOutputSchema: input.dataOutputSchema,
    constants: isObj(d.constants) ? (json(d.constants) as Record<string, Json>) : {},
    secrets: Array.isArray(d.secrets) ? [...d.secrets] : [],
    timeouts,
    errors,
    keepActive: d.keepActive === true,
    autoRetries: d.autoRetries === true,
    functions,
    events,
    retries,
    auth,
    states: (d.states as Obj[]).map(state),
  });
}
