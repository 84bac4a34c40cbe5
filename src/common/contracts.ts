/**
 * The seams between the parts of swflow: names and message shapes shared by the
 * interpreter workflow, the workers, adapters, the client, the event gateway and the
 * test runner. Types and constants only: safe to import from the workflow sandbox.
 */
import type { AuthDef, Definition, FunctionDef, Json } from './model';
import type { PinnedFunction } from './model-v1';

/** The task queue of the interpreter worker (the generic workflow and its own activities). */
export const INTERPRETER_TASK_QUEUE = 'swflow';

/** The queue of the built-in adapter worker, for functions without `metadata.worker`. */
export const ADAPTER_TASK_QUEUE = 'swflow-adapters';

/**
 * The opt-in queue of 1.0 `run.shell` / `run.script` processes (activities `sw.run.shell`,
 * `sw.run.script`): no worker serves it unless started for it, since they execute arbitrary code.
 */
export const PROCESS_TASK_QUEUE = 'swflow-processes';

/** The interpreter worker's activity that hands a produced CloudEvent to the worker's event sinks. */
export const PRODUCE_EVENT_ACTIVITY = 'swflow.produceEvent';

/** Signal that delivers one CloudEvent (structured JSON form) to a running instance. */
export const EVENT_SIGNAL = 'swflow.event';

/** Signal that suspends a run: no new state or task starts until RESUME_SIGNAL (`swflow suspend`). */
export const SUSPEND_SIGNAL = 'swflow.suspend';

/** Signal that resumes a suspended run (`swflow resume`). */
export const RESUME_SIGNAL = 'swflow.resume';

/**
 * Query answering {@link InstanceState}; with a {@link StateQueryArg} argument, only the
 * progress since a point of the run ({@link StateProgress}: `swflow run` following a run).
 */
export const STATE_QUERY = 'state';
/**
 * The keys (`<source>\u0000<id>`) of the last events the run consumed (its mailbox's dedupe
 * memory, at most 1,000). The gateway asks a *closed* run before a correlated event starts a new
 * run of the same id: a redelivery of an event that run consumed is not a new instance.
 */
export const CONSUMED_QUERY = 'swflow.consumed';

/** Search attributes registered on the server (`temporal server start-dev --search-attribute`). */
export const SEARCH_ATTRIBUTES = {
  SwDefinitionId: 'Keyword',
  SwDefinitionVersion: 'Keyword',
  SwDefinitionHash: 'Keyword',
  SwState: 'Keyword',
  /** The CloudEvent types a running instance waits for now (the gateway finds instances by it). */
  SwAwaitedEvents: 'KeywordList',
} as const;

/** A CloudEvent 1.0 in structured JSON form (extension attributes at the top level). */
export interface CloudEventJson {
  specversion: string;
  id: string;
  source: string;
  type: string;
  subject?: string;
  time?: string;
  datacontenttype?: string;
  data?: Json;
  [extension: string]: Json | undefined;
}

/**
 * The optional second argument of the generic workflow. Started from the Temporal CLI,
 * a run gets only the data input (`--type <id> --input '{...}'`) and the worker resolves the
 * definition by the workflow type; `swflow run`/`swflow test` and continue-as-new pass the
 * definition itself.
 */
export interface StartOptions {
  definition?: Definition;
  /** Subflow definitions by `id` or `id@version`, for runs whose worker does not know them. */
  subflows?: Record<string, Definition>;
  /** Interpreter state carried over an automatic continue-as-new (opaque to callers). */
  carried?: Json;
  /**
   * The 1.0 function documents (catalogs, URIs) the previous run of the chain pinned, carried over
   * continue-as-new so the chain never fetches them again (feature `v1-catalogs`).
   */
  functions?: Record<string, PinnedFunction>;
  /**
   * A child run started again by a redriven parent in place of one that failed (src/common/redrive.ts):
   * its calls that succeeded in that run are answered from its ledger, not made again.
   */
  redriveOf?: { workflowId: string; runId: string };
}

/**
 * One function call as an adapter sees it: the function definition, the evaluated arguments and
 * the call's context. Activity type and task queue: see `activityTypeOf` / `taskQueueOf`
 * (src/common/calls.ts).
 *
 * On the wire (0.8 runs with the `call-context-headers` feature, 1.0 runs with `v1-call-headers`)
 * the activity's input is only `arguments` — what CWM sends, so an activity written with any
 * Temporal SDK can serve it; for 1.0 the evaluated `with` — and the rest travels in the
 * `swflow-call` header ({@link CallContext}); the adapter SDK puts the two back together. Older
 * runs sent the whole FunctionCall as the input.
 */
export interface FunctionCall {
  function: Pick<FunctionDef, 'name' | 'type' | 'operation' | 'metadata'> & { authRef?: FunctionDef['authRef'] };
  arguments: Json;
  selectionSet?: string;
  /**
   * Arguments that reference $SECRETS, still as expressions (JSON Pointer into `arguments` →
   * expression; `arguments` holds null there): the activity side resolves them, so secret
   * values never reach workflow history.
   */
  secretArguments?: Record<string, string>;
  /**
   * What those expressions (and auth properties) read besides the secrets: the action's (0.8) or
   * task's (1.0) input data and the scope ($CONST, $WORKFLOW, variables such as 1.0's `$context`
   * or an iteration's, expression functions). Not secret, so it may be in history. Runs with the
   * `minimal-secret-context` feature send only what the expressions read (src/expr/reads.ts):
   * `data` is absent when no expression reads it, the scope holds only the names they read, cut
   * to the paths they read. Before, the whole data and scope.
   */
  secretContext?: { data?: Json; scope: { constants?: Json; workflow?: Json; variables?: Record<string, Json>; functions?: Record<string, string> } };
  /**
   * The auth definitions the function's `authRef` names, with their properties as written
   * (expressions over $SECRETS stay expressions): `invocation` for calling the function,
   * `resource` for fetching its document (authRef.resource).
   */
  auth?: { invocation?: AuthDef; resource?: AuthDef };
  workflow: { id: string; instanceId: string; definitionId: string };
  /** The 0.8 state; for a 1.0 call, the task's reference (its JSON pointer: `/do/0/getPet`). */
  state: string;
  /** The 0.8 action (its name, id or position); for a 1.0 call, the task's name. */
  action?: string;
  /**
   * A call made again because its worker stopped heartbeating (1.0 calls, `v1-a2a-calls`): the
   * last heartbeat details of the lost attempt, which the adapter reads as
   * `ctx.info.heartbeatDetails`, as if Temporal had retried the activity (so it can resume a
   * long operation instead of starting it again: adapters/a2a follows the agent task it recorded).
   */
  heartbeatDetails?: Json;
  /**
   * The logical call this is (feature `call-ids`, src/workflow/call-ids.ts): the same every time
   * the run makes this call again (retries, platform failures, a hand-over, a redrive), another
   * for another call. The built-in adapters' `Idempotency-Key` derives from it. Not secret.
   */
  callId?: string;
}

/**
 * What travels in the `swflow-call` header: the call without its arguments (which are the input).
 * Used by 0.8 calls (`call-context-headers`) and 1.0 calls (`v1-call-headers`) alike.
 */
export type CallContext = Omit<FunctionCall, 'arguments'>;

/**
 * What a failing service reports (`details[0]` of the activity's ApplicationFailure); `code` is
 * matched by `errors[].code`. `request` and `answer` say what was sent and what came back
 * (secrets redacted).
 */
export interface ServiceErrorDetails {
  code?: string;
  message: string;
  request?: string;
  answer?: Json;
}

/** The answer of the `state` query. */
export interface InstanceState {
  definitionId: string;
  definitionVersion?: string;
  currentStates: string[];
  statesEntered: string[];
  data: Json;
  awaitedEvents: string[];
  /** `suspended`: by `swflow suspend` until resumed; `cancelled`: by a Temporal cancel. */
  status: 'running' | 'suspended' | 'completed' | 'failed' | 'cancelled' | 'compensating';
  /**
   * The steps of this run in the order they were entered (the last STEPS_LISTED of them), with
   * workflow times: `step` is the state name (0.8) or the task's JSON pointer (1.0). Query output
   * only (nothing recorded): what the run page draws. `stepsTotal`: how many there were in all.
   */
  steps?: StepRecord[];
  stepsTotal?: number;
  /** The function calls in flight (query output only: host/calls-in-flight.ts). */
  callsInFlight?: CallInFlight[];
}

/**
 * The `state` query's optional argument. With `since`, the answer is a {@link StateProgress}: the
 * entries of `statesEntered` from that point on and what the run awaits, without its data or
 * steps, so a client that follows a run (`swflow run`) transfers each entry once. A worker that
 * predates the argument ignores it and answers the whole {@link InstanceState} (no `progress`).
 */
export interface StateQueryArg {
  since: StateSince;
}

/**
 * A point in the path of one run: `entered` entries of the `statesEntered` of run `runId`.
 * Positions count per run: a run continued as new starts its list with the last steps of the run
 * before it (at most 100, {@link StateProgress.carried}), then its own. Without `runId`, the run
 * answering; with another run's id, the answer starts at the answering run's first entry.
 */
export interface StateSince {
  runId?: string;
  entered: number;
}

/** The `state` query's answer to a {@link StateQueryArg}: the progress of the run since a point. */
export interface StateProgress {
  /** Tells this answer from an InstanceState (what a worker that ignores the argument answers). */
  progress: true;
  definitionId: string;
  definitionVersion?: string;
  /** The run answering, and the run it continued as new from (absent for the first run of a chain). */
  runId: string;
  continuedFrom?: string;
  /**
   * `entered`: this run's statesEntered from index `from` on (at most a page of them), of
   * `total` in all. `from` is `since.entered` when `since.runId` is this run's (or absent), else 0.
   */
  from: number;
  entered: string[];
  total: number;
  /** How many of this run's first entries are the last ones of the run it continued from. */
  carried: number;
  currentStates: string[];
  awaitedEvents: string[];
  status: InstanceState['status'];
}

/** A function call in flight: its step, function, target, kind, start (workflow time, epoch ms) and attempt. */
export interface CallInFlight {
  /** The 0.8 state, or the 1.0 task's reference. */
  step: string;
  action?: string;
  function: string;
  /** What it calls (its summary's target: a function, `GET <url>`). */
  target: string;
  /** A local activity on the interpreter worker, or an activity (pending in Temporal). */
  kind: 'local' | 'activity';
  startedAt: number;
  /** 1 for the first call of the step, counting the definition's retries and calls made again. */
  attempt: number;
  /** A local call that outlived its bound, made again as an activity (feature local-call-hand-over). */
  handedOver?: boolean;
}

export interface StepRecord {
  step: string;
  type: string;
  status: 'running' | 'done' | 'failed' | 'compensating' | 'compensated';
  enteredAt?: number;
  leftAt?: number;
}
