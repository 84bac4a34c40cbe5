/**
 * Interpreter features: behaviours that change the commands a run issues, switched on for runs
 * that start on a worker knowing them and recorded with the pinned definition (pinning.ts
 * ResolveResult.features), so a replay takes the path its run took. Sandbox-safe constants.
 */
/** Search attributes written once per workflow task, just before the run blocks (host/tracker.ts). */
export const FEATURE_UPSERTS_BEFORE_BLOCKING = 'upserts-before-blocking';
/** Expressible retry strategies as the activity's Temporal RetryPolicy (retry.ts). */
export const FEATURE_NATIVE_RETRY_POLICY = 'native-retry-policy';
/** keepActive instances whose flow ended run their event start state again per new matching event (v08/run.ts). */
export const FEATURE_KEEP_ACTIVE_EVENTS = 'keep-active-events';
/** A redelivered event (same source and id as one consumed) is not consumed again (events/mailbox.ts). */
export const FEATURE_EVENT_DEDUPE = 'event-dedupe';
/**
 * A function activity's input is its evaluated arguments only (what CWM sends); the call's context
 * (function, workflow, state, action, secret-argument expressions with the data they read, auth
 * definitions) travels in the `swflow-call` header (functions.ts, interceptors.ts).
 */
export const FEATURE_CALL_CONTEXT_HEADERS = 'call-context-headers';
/**
 * Failures of the platform are not the user's errors (platform-failures.ts): function calls without a
 * definition timeout run unlimited (a very long start-to-close) with a heartbeat timeout; a call
 * that ends by a heartbeat timeout, a start-to-close timeout the definition did not set, or a
 * worker shutdown is made again, outside the definition's retries; a Temporal RetryPolicy only
 * carries strategies with unlimited attempts (retry.ts).
 */
export const FEATURE_PLATFORM_FAILURES = 'platform-failures';
/** Unlimited attempts are a RetryPolicy without maximumAttempts (was 0, which the SDK rejects: retry.ts). */
export const FEATURE_UNLIMITED_AUTO_RETRIES = 'unlimited-auto-retries';
/**
 * workflowExecTimeout with `interrupt: false`: the current state may finish its work, but a wait for
 * an event (which may never come) ends at the timeout, as with `interrupt: true` (v08/run.ts).
 */
export const FEATURE_EXEC_TIMEOUT_ENDS_EVENT_WAITS = 'exec-timeout-ends-event-waits';
/** A graphql action's `selectionSet` has its `${ }` expressions evaluated before the call (functions.ts). */
export const FEATURE_SELECTION_SET_EXPRESSIONS = 'selection-set-expressions';
/** The SwAwaitedEvents search attribute: the CloudEvent types the run waits for, kept current (host/tracker.ts, events/mailbox.ts). */
export const FEATURE_AWAITED_EVENTS_ATTRIBUTE = 'awaited-events-attribute';
/**
 * Expressions, data filters and the data flow around them are evaluated without `await` where
 * the work is synchronous (the jq engine is), and wrappers with nothing to wait for (a timeout
 * that is not set, a schema that is not given, a continue-as-new that is not due) are skipped.
 * Fewer promises per step (the SDK records a stack trace for every promise a workflow creates),
 * but fewer microtask turns before a branch's command: concurrent branches (parallel states and
 * actions, foreach iterations, 1.0 fork branches) may issue their commands in another order, so
 * runs recorded without it keep the awaits (data/filters-async.ts and the `Async` functions).
 */
export const FEATURE_SYNC_EXPRESSIONS = 'sync-expressions';
/**
 * A foreach fanned out to chunk child workflows gives each child its own elements and the state
 * data without the collection (states/foreach.ts), instead of the whole data: a child's input,
 * and the parent's history, no longer grow with the collection times the number of chunks.
 */
export const FEATURE_FOREACH_CHUNK_SLICES = 'foreach-chunk-slices';
/**
 * A failure inside one iteration of a fan-out names the iteration: a 0.8 foreach chunk child's
 * failure carries its site (state, `[index] › action`, function) in its details, and the parent
 * raises it as that iteration's error (the same message, code and kind as an unchunked foreach's,
 * so `onErrors` matches it the same way: before, a chunk's failure was a `subflow` error whose
 * message had lost the index); a 1.0 `for` adds `iteration <i> of <reference>` to the detail of
 * an error leaving an iteration (v08/states/foreach.ts, v1/tasks/for.ts). And the iterations of
 * a foreach running when one fails are waited for, not cancelled: cancelling local calls (reads)
 * in flight made the SDK fail the workflow task ("Invalid transition in state machine") forever.
 */
export const FEATURE_ITERATION_FAILURE_INDEX = 'iteration-failure-index';
/**
 * A 1.0 `for` task of the top-level `do` list continues as new between two iterations when the
 * history grows long (the carry holds the next iteration and the data threaded through), as the
 * top-level list does between tasks: a `for` with a call per iteration over 100,000 items stays
 * under Temporal's event limit. Before it, only the top-level list's transitions continued as new
 * (v1/tasks/for.ts, v1/run.ts).
 */
export const FEATURE_V1_FOR_CONTINUE_AS_NEW = 'v1-for-continue-as-new';
/**
 * A walk of states or tasks that issues no command (expression functions, switches, 1.0 `set`
 * tasks looping) ends its workflow task every TRANSITIONS_PER_TASK steps with a 1 ms timer
 * (host/walk-budget.ts), so one task never runs into the SDK's 5 s limit: before it, a 10,000-iteration
 * expression loop failed its workflow task again and again and never finished.
 */
export const FEATURE_YIELD_LONG_WALKS = 'yield-long-walks';
/**
 * 1.0 calls (`call: http`, `openapi`, `@default` activities) get the platform-failures
 * semantics of 0.8 calls: without a task `timeout` the activity runs unlimited (a very long
 * start-to-close) with a heartbeat timeout (`metadata['swflow.heartbeat']`, default PT30S), and
 * a call ended by a platform failure is made again, not raised (v1/tasks/calls/activity.ts, platform-failures.ts).
 */
export const FEATURE_V1_CALL_PLATFORM_FAILURES = 'v1-call-platform-failures';
/**
 * A 0.8-family data input that is not a JSON object (a string, number, array, boolean) fails the
 * run at once with a message saying what was given (spec "Workflow Data Input": "Must be a valid
 * JSON object"); was: treated as `{}` (data/input.ts). No input (`null`) still means `{}`.
 */
export const FEATURE_OBJECT_DATA_INPUT = 'object-data-input';
/** 1.0 `call: grpc` and `call: asyncapi` are the adapter activities `sw.grpc` and `sw.asyncapiCall` (v1/tasks/calls/grpc.ts, asyncapi.ts); before, a runtime error (501). */
export const FEATURE_V1_GRPC_ASYNCAPI_CALLS = 'v1-grpc-asyncapi-calls';
/**
 * Calls of functions (0.8) and call tasks (1.0) whose metadata says `swflow.local: true`, served by
 * swflow's built-in adapters, run as local activities on the interpreter's worker (metadata.ts
 * LOCAL_METADATA; the worker registers the built-in adapters for them: interpreter-worker.ts).
 */
export const FEATURE_LOCAL_CALLS = 'local-calls';
/**
 * The run host's lifecycle CloudEvents (host/lifecycle.ts) for runs whose worker opted in: 0.8 runs
 * publish them too (a state is a task at `/states/<index>`), and both DSLs add
 * workflow.{suspended,resumed,cancelled,status-changed,correlation-started,correlation-completed}
 * and task.{created,suspended,resumed}. Runs recorded before published the 1.0 subset only.
 */
export const FEATURE_HOST_LIFECYCLE = 'host-lifecycle';
/**
 * A 1.0 run publishes in SwAwaitedEvents what its active `listen` tasks wait for: event types,
 * and types qualified by the correlation values a filter expects (common/awaited-events.ts), so
 * the gateway reaches 1.0 runs as it reaches 0.8 runs (host/tracker.ts, events/mailbox.ts, v1/tasks/listen.ts).
 */
export const FEATURE_V1_AWAITED_EVENTS = 'v1-awaited-events';
/**
 * A 1.0 document with `schedule.on` first takes its starting events from the mailbox by that
 * strategy, and runs `do` with the array of them as its input (v1/schedule.ts); before, such a
 * document was refused.
 */
export const FEATURE_V1_SCHEDULE_ON = 'v1-schedule-on';
/**
 * A 1.0 document with `schedule.after`: a run that completes sleeps that long (a timer) and
 * continues as new with its original input (v1/schedule.ts).
 */
export const FEATURE_V1_SCHEDULE_AFTER = 'v1-schedule-after';
/**
 * A 1.0 call (v1/tasks/calls/activity.ts) goes out as a 0.8 call does (`call-context-headers`): the
 * activity's input is the evaluated `with`, the rest of the FunctionCall travels in the
 * `swflow-call` header. Before, the whole FunctionCall was the input.
 */
export const FEATURE_V1_CALL_HEADERS = 'v1-call-headers';
/**
 * A call's `secretContext` (0.8 and 1.0) holds only what its secret expressions and auth
 * properties read (src/expr/reads.ts): the data when they read it, the variables, constants and
 * functions they name, cut to the paths they read. Before: the whole data and scope (for 1.0 that
 * scope held `$workflow` with the definition and the workflow input, `$task`, `$context`...).
 */
export const FEATURE_MINIMAL_SECRET_CONTEXT = 'minimal-secret-context';
/**
 * 1.0 durations written as runtime expressions (`${ … }`) are evaluated where they are needed: a
 * task's or the workflow's `timeout.after` (also through `use.timeouts`), a retry policy's `delay`
 * and `jitter` (when a retry is scheduled), `limit.duration` and `limit.attempt.duration` (at the
 * try's start); what they yield must be an ISO 8601 string or an inline duration, else an
 * expression error at the task (v1/durations.ts). Before it, such durations failed the task
 * ("not an ISO 8601 duration"), and a `wait` expression's value was not checked.
 */
export const FEATURE_V1_DURATION_EXPRESSIONS = 'v1-duration-expressions';
/**
 * A 1.0 run with a workflow `timeout` that continues as new (history grown long) does so, and a
 * cancelled one is cancelled (v1/run.ts withDeadline): before it, both became a runtime error
 * ("Workflow continued as new") that failed the run.
 */
export const FEATURE_V1_TIMEOUT_CONTINUE_AS_NEW = 'v1-timeout-continue-as-new';
/**
 * 1.0 `use.extensions` run: their `before`/`after` task lists around every task they extend
 * (v1/extensions.ts). Runs recorded before ignored extensions (validation warned) and still do.
 */
export const FEATURE_V1_EXTENSIONS = 'v1-extensions';
/**
 * 1.0 `evaluate.mode: loose`: every string of a value (`with`, `set`, …) is evaluated, a string
 * that fails to evaluate stands for itself (expressions.ts evalLooseSync). Runs recorded before
 * evaluated such documents strictly (validation warned) and still do.
 */
export const FEATURE_V1_LOOSE_EVALUATION = 'v1-loose-evaluation';
/**
 * A 1.0 `call: asyncapi` with a `subscription` is served (v1/tasks/asyncapi-subscription.ts): its
 * `filter`, `consume.while`/`until` go to the activity unevaluated with the variables they read,
 * and `foreach` runs over the messages the activity returns. Before, the whole `with` was
 * evaluated as arguments and the adapter refused the subscription (a configuration problem).
 */
export const FEATURE_V1_ASYNCAPI_SUBSCRIPTIONS = 'v1-asyncapi-subscriptions';
/** 1.0 `call: mcp` is the adapter activity `sw.mcp` (adapters/mcp, v1/tasks/calls/mcp.ts); before, a runtime error (501). */
export const FEATURE_V1_MCP_CALLS = 'v1-mcp-calls';
/**
 * 1.0 `call: a2a` is the adapter activity `sw.a2a` (adapters/a2a), never local, with a retry
 * policy that has Temporal run it again after a platform failure (heartbeat timeout, worker
 * shutdown) so the new attempt reads the last heartbeat's agent task and follows it instead of
 * sending the message again (the adapter fails non-retryably otherwise); before, a runtime error (501).
 */
export const FEATURE_V1_A2A_CALLS = 'v1-a2a-calls';
/**
 * 1.0 catalogs (`use.catalogs`, `call: name:version@catalog`) and functions by URI (`call: <uri>`):
 * the interpreter worker fetches their documents when it pins the definition
 * (ResolveResult.functions, carried over continue-as-new in StartOptions.functions) and the call
 * runs the function's task as a `use.functions` function (v1/tasks/calls/function.ts). Before, such a call
 * failed with a runtime error (501).
 */
export const FEATURE_V1_CATALOGS = 'v1-catalogs';
/**
 * A 1.0 input/output/export schema given as a `resource` (an external JSON Schema) is checked: the
 * first time a run needs it, `swflow.validateData` fetches it in the worker (with the endpoint's
 * authentication) and returns it with the problems, so the run's history pins it; later checks
 * send it inline (v1/run.ts). Before, such schemas were not checked.
 */
export const FEATURE_V1_SCHEMA_RESOURCES = 'v1-schema-resources';
/** 1.0 `run.container` is the activity `sw.run.container` on the opt-in process queue (v1/tasks/run.ts); before, a runtime error (501). */
export const FEATURE_V1_RUN_CONTAINER = 'v1-run-container';
/**
 * A 1.0 subscription with a `foreach` whose consumption `while`/`until` governs is consumed in
 * steps (v1/tasks/asyncapi-subscription.ts): the workflow calls the adapter activity again and
 * again, each call returning the next message(s) (over MQTT a persistent session keeps what
 * arrives between two calls), runs `foreach` over each as it comes, and evaluates `while`/`until`
 * itself with the current variables (`$context` as `export.as` left it); `amount` and `for` are
 * counted in the workflow; a last call ends the session. Runs recorded before consumed the whole
 * subscription in one activity, then ran `foreach` over what it returned.
 */
export const FEATURE_V1_SUBSCRIPTION_STREAMING = 'v1-subscription-streaming';
/**
 * A lost worker is noticed before the definition's timeout (timeouts.ts scaledHeartbeatMs): a call
 * with a declared timeout (0.8 `actionExecTimeout`, a 1.0 call task's `timeout.after`) gets a
 * heartbeat timeout of a third of it (at least 2 s, at most the default heartbeat timeout; an
 * explicit `swflow.heartbeat` is kept), so a call in flight on a killed adapter is made again
 * (platform-failures.ts) instead of failing when the declared timeout runs out. A 0.8 call the service keeps
 * busy past `actionExecTimeout` fails with a timeout error naming it (was: "timed out (startToClose)").
 */
export const FEATURE_SCALED_HEARTBEATS = 'scaled-heartbeats';
/**
 * Calls served by swflow's built-in adapters (0.8 protocol functions, 1.0 `call: http|openapi|grpc|
 * asyncapi|mcp`) without `metadata.worker` and not `swflow.local` are activities on the run's own
 * task queue (the interpreter worker registers the built-in adapters and heartbeats for them,
 * interpreter-worker.ts), not on `swflow-adapters`: with the server's eager activity execution
 * (`system.enableActivityEagerExecution`, on in swflow's dev servers) the worker that completes the
 * workflow task gets the activity back in the answer and runs it at once, without a task-queue
 * round trip. Still a full activity: its own attempt, heartbeat timeout (a lost worker is
 * noticed and the call made again on another), an event with its summary in the Web UI.
 * Recorded only by workers that serve built-in calls (InterpreterWorkerOptions.builtinCalls).
 */
export const FEATURE_EAGER_CALLS = 'eager-calls';
/**
 * Consecutive function call activities write the search attributes (SwState...) once, before the
 * first call, not before each: the next write is at the run's next other wait (an event, a timer,
 * a child, continue-as-new) or its end (host/tracker.ts Tracker.flushBeforeCall). A 10-call 1.0 run writes
 * SwState twice instead of ten times (one event and one visibility write less per call).
 */
export const FEATURE_STATE_AT_WAITS = 'state-at-waits';
/**
 * Built-in calls that only read run as local activities on the interpreter worker by default (as
 * `swflow.local: true`), unless their metadata says `swflow.local: false` (or names a `worker`):
 * 1.0 `call: http` with a safe method (GET, HEAD, OPTIONS: RFC 9110 §9.2.1, read-only and so
 * harmless to make again), 0.8 REST functions whose OpenAPI operation has one of those methods
 * (found in the document when the run is pinned: ResolveResult.readFunctions), 0.8 GraphQL
 * queries and OData queries (common/calls.ts). A local activity gives up the per-call task-queue
 * round trip and workflow task: consecutive reads complete within one workflow task. What
 * changes: a lost worker is noticed by the workflow task timeout and the reads not yet recorded
 * are made again (reads: harmless); the Web UI shows each as a local activity marker with its
 * summary. Writes stay activities (`eager-calls`). Recorded only by workers that serve built-in
 * calls (InterpreterWorkerOptions.builtinCalls), like `eager-calls`.
 */
export const FEATURE_LOCAL_READS = 'local-reads';
/** What this worker's interpreter knows (returned by the resolve local activity). */
/**
 * A listen's `until: { any: [] }` (an empty `any`: every incoming event, as `to.any: []` is) ends
 * the listen at the next event, which is not output (spec: events consumed by `until` are not part of
 * the output). Runs recorded before it kept consuming the `to.any` events forever.
 */
export const FEATURE_V1_LISTEN_UNTIL_ANY_EVENT = 'v1-listen-until-any-event';

/**
 * The results of local activities (reads, `swflow.local` calls) in one workflow task add up in
 * its completion (one marker each), and Temporal refuses a completion over 4 MB ("GRPC Message
 * too large": the task fails again and again and the run stalls). After a local call whose
 * result brings the task's local results over LOCAL_RESULT_BYTES_PER_TASK, the run yields with a
 * 1 ms timer, so the markers so far are recorded (host/walk-budget.ts). Results arrive one
 * microtask turn later, so runs recorded without it keep the old order.
 */
export const FEATURE_YIELD_LOCAL_RESULTS = 'yield-local-results';
/**
 * After a redrive (a Temporal reset whose reason is swflow's, src/common/redrive.ts), the run takes
 * the results of the calls its old run made after the reset point and that succeeded from a ledger
 * (one local activity, `swflow.redriveLedger`) instead of making them again (host/redrive.ts).
 */
export const FEATURE_REDRIVE_LEDGER = 'redrive-ledger';
/**
 * A local call without a timeout of its own that outlives its bound (`swflow.localBound`, default
 * PT30S: src/common/metadata.ts) is made again as a regular activity on the run's queue, so it
 * shows as a pending activity (host/calls-in-flight.ts, docs/stuck-calls.md). The local call gets
 * that bound as its schedule-to-close timeout; runs recorded without it keep unlimited local calls.
 */
export const FEATURE_LOCAL_CALL_HAND_OVER = 'local-call-hand-over';
/**
 * Each function call (0.8 and 1.0, activity or local activity) carries a call id in its
 * `swflow-call` header (FunctionCall.callId, src/workflow/call-ids.ts): the same for every time the
 * same logical call is made (Temporal's retries, a call made again after a platform failure, a
 * definition retry, a local call handed over, a redrive), different for two calls (a loop's next
 * iteration). The built-in adapters derive the `Idempotency-Key` from it (was: from the activity's
 * identity, which each of those repeats changes).
 */
export const FEATURE_CALL_IDS = 'call-ids';
/**
 * 1.0 frames that only passed a promise on are gone from a task's path: a task no extension
 * applies to runs without the `extended` frame (v1/pipeline.ts), a built-in call kind's task
 * returns its adapter call's promise (v1/tasks/call.ts), and an endpoint without an
 * authentication policy to resolve makes no promise (v1/tasks/calls/activity.ts). Fewer promises
 * and microtask turns per call (bench/README.md, "The floor that pins its document"); the turns
 * order concurrent fork branches' commands, so runs recorded before keep the old frames.
 */
export const FEATURE_V1_DIRECT_FRAMES = 'v1-direct-frames';
/**
 * Expressions cost what they read (issue 44): the common shapes (paths, literals, object and array
 * construction, `+` of arrays, `length`, comparisons, `if`) are evaluated in TypeScript with jq's
 * answers and values shared instead of copied (src/expr/shapes.ts); each jq run has a step budget
 * (EVAL_FUEL: an endless or far too large evaluation fails its step with an `expression` error
 * instead of the workflow task failing forever); and the walk budget yields when the work done in
 * one workflow task (bytes through jq, jq steps, shape evaluations: deterministic units) passes
 * WORK_PER_TASK, not only after a count of steps. Yield points and failures differ from runs
 * recorded before, which keep the old way.
 */
export const FEATURE_EXPRESSION_WORK = 'expression-work';
export const INTERPRETER_FEATURES = [
  FEATURE_REDRIVE_LEDGER,
  FEATURE_YIELD_LOCAL_RESULTS,
  FEATURE_UPSERTS_BEFORE_BLOCKING,
  FEATURE_NATIVE_RETRY_POLICY,
  FEATURE_KEEP_ACTIVE_EVENTS,
  FEATURE_EVENT_DEDUPE,
  FEATURE_CALL_CONTEXT_HEADERS,
  FEATURE_PLATFORM_FAILURES,
  FEATURE_UNLIMITED_AUTO_RETRIES,
  FEATURE_EXEC_TIMEOUT_ENDS_EVENT_WAITS,
  FEATURE_SELECTION_SET_EXPRESSIONS,
  FEATURE_AWAITED_EVENTS_ATTRIBUTE,
  FEATURE_SYNC_EXPRESSIONS,
  FEATURE_FOREACH_CHUNK_SLICES,
  FEATURE_ITERATION_FAILURE_INDEX,
  FEATURE_V1_FOR_CONTINUE_AS_NEW,
  FEATURE_YIELD_LONG_WALKS,
  FEATURE_V1_CALL_PLATFORM_FAILURES,
  FEATURE_OBJECT_DATA_INPUT,
  FEATURE_V1_GRPC_ASYNCAPI_CALLS,
  FEATURE_LOCAL_CALLS,
  FEATURE_HOST_LIFECYCLE,
  FEATURE_V1_AWAITED_EVENTS,
  FEATURE_V1_SCHEDULE_ON,
  FEATURE_V1_SCHEDULE_AFTER,
  FEATURE_V1_CALL_HEADERS,
  FEATURE_MINIMAL_SECRET_CONTEXT,
  FEATURE_V1_DURATION_EXPRESSIONS,
  FEATURE_V1_TIMEOUT_CONTINUE_AS_NEW,
  FEATURE_V1_EXTENSIONS,
  FEATURE_V1_LOOSE_EVALUATION,
  FEATURE_V1_ASYNCAPI_SUBSCRIPTIONS,
  FEATURE_V1_MCP_CALLS,
  FEATURE_V1_A2A_CALLS,
  FEATURE_V1_CATALOGS,
  FEATURE_V1_SCHEMA_RESOURCES,
  FEATURE_V1_RUN_CONTAINER,
  FEATURE_V1_SUBSCRIPTION_STREAMING,
  FEATURE_SCALED_HEARTBEATS,
  FEATURE_EAGER_CALLS,
  FEATURE_STATE_AT_WAITS,
  FEATURE_LOCAL_READS,
  FEATURE_V1_LISTEN_UNTIL_ANY_EVENT,
  FEATURE_LOCAL_CALL_HAND_OVER,
  FEATURE_CALL_IDS,
  FEATURE_V1_DIRECT_FRAMES,
  FEATURE_EXPRESSION_WORK,
];
