/**
 * The canonical definition model: what `src/dsl` produces from any accepted document
 * (0.8, CWM 0.9, the v0.1 draft) and what the interpreter and every other part consume.
 *
 * Rules of the model (the interpreter relies on them, so never guesses):
 * - every shortcut is expanded (`functionRef: "f"`, `transition: "S"`, `end: true`, ...);
 * - every spec default is explicit (`invoke: 'sync'`, `exclusive: true`, `usedForCompensation: false`, ...);
 * - every reference resolves (states, functions, events, errors, retries);
 * - external resources (`functions: "file://..."`) are inlined;
 * - expressions are kept as written (`"${ .a }"` or bare jq where the field is always an
 *   expression); `src/expr` decides what is an expression;
 * - durations are ISO 8601 strings, already checked to parse;
 * - everything is plain JSON, so the model can travel through Temporal history.
 *
 * Types only: safe to import from the workflow sandbox.
 */

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** The document dialect the definition was written in (it is translated to this model). */
export type Dialect = '0.8' | 'cwm-0.9' | 'v0.1';

export interface WorkflowDef {
  id: string;
  key?: string;
  name?: string;
  description?: string;
  version?: string;
  /** The version of the document as written ('0.8', '0.9', '0.1', or '0.8' when missing). */
  specVersion: string;
  dialect: Dialect;
  annotations: string[];
  metadata: Record<string, string>;
  start: StartDef;
  expressionLang: string; // always 'jq' for now; anything else is a validation error
  dataInputSchema?: DataSchemaDef;
  dataOutputSchema?: DataSchemaDef;
  constants: Record<string, Json>;
  /** Names of the secrets the definition may use as $SECRETS.<name>. Values never enter the model. */
  secrets: string[];
  timeouts?: TimeoutsDef;
  errors: ErrorDef[];
  keepActive: boolean;
  autoRetries: boolean;
  functions: FunctionDef[];
  events: EventDef[];
  retries: RetryDef[];
  auth: AuthDef[];
  states: StateDef[];
}

export interface StartDef {
  stateName: string;
  schedule?: ScheduleDef;
}

export interface ScheduleDef {
  interval?: string;
  cron?: { expression: string; validUntil?: string };
  timezone?: string;
}

export interface DataSchemaDef {
  /** Inlined JSON schema (resolved from the URI when the document gave one). */
  schema: Json;
  failOnValidationErrors: boolean;
}

export interface TimeoutsDef {
  workflowExecTimeout?: { duration: string; interrupt: boolean; runBefore?: string };
  stateExecTimeout?: { single?: string; total: string };
  actionExecTimeout?: string;
  branchExecTimeout?: string;
  eventTimeout?: string;
}

export interface ErrorDef {
  name: string;
  code?: string;
  description?: string;
}

export type FunctionType =
  | 'rest'
  | 'asyncapi'
  | 'rpc'
  | 'graphql'
  | 'odata'
  | 'expression'
  | 'custom'
  | (string & {}); // extension types (e.g. Kogito's), accepted with a warning

export interface FunctionDef {
  name: string;
  operation: string;
  type: FunctionType;
  authRef?: string | { resource: string; invocation?: string };
  metadata: Record<string, string>;
  /**
   * 0.9 `type: http` functions only: the request as written in the document's `operation`
   * object (`method`, `uri` with `{name}` placeholders filled from the arguments, optional
   * `headers`, `cookies`...). `operation` then holds the uri.
   */
  http?: { method: string; uri: string; [key: string]: Json };
}

export interface EventDef {
  name: string;
  source?: string;
  type: string;
  kind: 'consumed' | 'produced';
  correlation: { contextAttributeName: string; contextAttributeValue?: string }[];
  dataOnly: boolean;
  metadata: Record<string, string>;
}

export interface RetryDef {
  name: string;
  delay?: string;
  maxDelay?: string;
  increment?: string;
  /** A number (multiplier) as in the spec; strings are converted during normalization. */
  multiplier?: number;
  /** Unlimited when undefined (CWM's `maxAttempts: 0` is normalized to undefined). */
  maxAttempts?: number;
  /** A fraction (0..1) or an ISO 8601 duration string. */
  jitter?: number | string;
}

export interface AuthDef {
  name: string;
  scheme: 'basic' | 'bearer' | 'oauth2';
  properties: Record<string, Json>;
}

// ---------------------------------------------------------------- transitions and ends

export interface ProduceEventDef {
  eventRef: string;
  data?: Json;
  contextAttributes?: Record<string, string>;
}

export interface TransitionDef {
  nextState: string;
  produceEvents: ProduceEventDef[];
  compensate: boolean;
}

export interface ContinueAsDef {
  workflowId: string;
  version?: string;
  data?: Json;
  workflowExecTimeout?: { duration: string; interrupt: boolean; runBefore?: string };
}

export interface EndDef {
  terminate: boolean;
  produceEvents: ProduceEventDef[];
  compensate: boolean;
  continueAs?: ContinueAsDef;
}

// ---------------------------------------------------------------- actions

export interface FunctionRefDef {
  refName: string;
  /**
   * Usually an object of arguments; Kogito documents may also give an expression string
   * (`"${ .inputArray }"`: its value is the arguments, of any JSON type) or an array. The
   * interpreter evaluates it with `evaluateTemplate` whatever its shape.
   */
  arguments?: Json;
  selectionSet?: string;
  invoke: 'sync' | 'async';
}

export interface EventRefDef {
  produceEventRef: string;
  consumeEventRef?: string;
  consumeEventTimeout?: string;
  data?: Json;
  contextAttributes?: Record<string, string>;
  invoke: 'sync' | 'async';
}

export interface SubFlowRefDef {
  workflowId: string;
  version?: string;
  invoke: 'sync' | 'async';
  onParentComplete: 'terminate' | 'continue';
}

export interface ActionDataFilterDef {
  fromStateData?: string;
  useResults: boolean;
  results?: string;
  toStateData?: string;
}

export interface ActionDef {
  id?: string;
  name?: string;
  /** Exactly one of functionRef / eventRef / subFlowRef is set. */
  functionRef?: FunctionRefDef;
  eventRef?: EventRefDef;
  subFlowRef?: SubFlowRefDef;
  retryRef?: string;
  nonRetryableErrors?: string[];
  retryableErrors?: string[];
  actionDataFilter: ActionDataFilterDef;
  sleep?: { before?: string; after?: string };
  condition?: string;
}

// ---------------------------------------------------------------- states

export interface StateDataFilterDef {
  input?: string;
  output?: string;
}

export interface ErrorHandlerDef {
  /** One or more error names (errorRef is normalized into errorRefs). */
  errorRefs: string[];
  transition?: TransitionDef;
  end?: EndDef;
}

export interface StateTimeoutsDef {
  stateExecTimeout?: { single?: string; total: string };
  actionExecTimeout?: string;
  branchExecTimeout?: string;
  eventTimeout?: string;
}

interface BaseState {
  name: string;
  id?: string;
  stateDataFilter?: StateDataFilterDef;
  /** Exactly one of transition / end is set, except for switch states (neither) and
   * states used only for compensation (which may have neither). */
  transition?: TransitionDef;
  end?: EndDef;
  onErrors: ErrorHandlerDef[];
  compensatedBy?: string;
  usedForCompensation: boolean;
  timeouts?: StateTimeoutsDef;
  metadata: Record<string, string>;
}

export interface OnEventsDef {
  eventRefs: string[];
  actionMode: 'sequential' | 'parallel';
  actions: ActionDef[];
  eventDataFilter: EventDataFilterDef;
}

export interface EventDataFilterDef {
  useData: boolean;
  data?: string;
  toStateData?: string;
}

export interface EventState extends BaseState {
  type: 'event';
  exclusive: boolean;
  onEvents: OnEventsDef[];
}

export interface OperationState extends BaseState {
  type: 'operation';
  actionMode: 'sequential' | 'parallel';
  actions: ActionDef[];
}

export interface DataConditionDef {
  name?: string;
  condition: string;
  transition?: TransitionDef;
  end?: EndDef;
  metadata: Record<string, string>;
}

export interface EventConditionDef {
  name?: string;
  eventRef: string;
  eventDataFilter: EventDataFilterDef;
  transition?: TransitionDef;
  end?: EndDef;
  metadata: Record<string, string>;
}

export interface SwitchState extends BaseState {
  type: 'switch';
  /** Exactly one of dataConditions / eventConditions is non-empty. */
  dataConditions: DataConditionDef[];
  eventConditions: EventConditionDef[];
  defaultCondition: { transition?: TransitionDef; end?: EndDef };
}

export interface SleepState extends BaseState {
  type: 'sleep';
  duration: string;
}

export interface BranchDef {
  name: string;
  actions: ActionDef[];
  timeouts?: { actionExecTimeout?: string; branchExecTimeout?: string };
}

export interface ParallelState extends BaseState {
  type: 'parallel';
  branches: BranchDef[];
  completionType: 'allOf' | 'atLeast';
  /** Set (≥ 1, ≤ branches) when completionType is 'atLeast'. */
  numCompleted?: number;
}

export interface InjectState extends BaseState {
  type: 'inject';
  data: Json;
}

export interface ForEachState extends BaseState {
  type: 'foreach';
  inputCollection: string;
  outputCollection?: string;
  /** Defaults to 'item' (the spec's default name for the iteration parameter). */
  iterationParam: string;
  /** Undefined = unlimited. */
  batchSize?: number;
  actions: ActionDef[];
  mode: 'parallel' | 'sequential';
}

export interface CallbackState extends BaseState {
  type: 'callback';
  action: ActionDef;
  eventRef: string;
  eventDataFilter: EventDataFilterDef;
}

export type StateDef =
  | EventState
  | OperationState
  | SwitchState
  | SleepState
  | ParallelState
  | InjectState
  | ForEachState
  | CallbackState;

export type StateType = StateDef['type'];

/** Any definition the interpreter runs: 0.8-family (canonical model above) or 1.0 (see ./v1/model.ts). */
export type Definition = WorkflowDef | import('./model-v1').V1Definition;
