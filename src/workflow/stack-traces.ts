/**
 * Preloaded into the workflow sandbox (bundleInterpreter's `preloadModules`, before the SDK
 * freezes the sandbox's built-ins): no stack captured by errors made inside it.
 *
 * Why: the Temporal SDK's promise hook makes an Error for every promise a workflow creates and
 * formats its stack through the bundle's source map (for the `__stack_trace` query). The
 * interpreter creates ~4× the promises of a hand-written workflow, and this was a quarter of its
 * sandbox CPU per run (bench/README.md, "The sandbox's stack traces: the promise hook's cost").
 * The frames would be the interpreter's own, which tell a user nothing: failures name the state
 * or task (`/do/0/getPet`), and the `state` query says where a run is.
 * `SWFLOW_WORKFLOW_STACK_TRACES=1` where the bundle is made keeps Node's default (for debugging
 * the interpreter).
 */
(Error as unknown as { stackTraceLimit: number }).stackTraceLimit = 0;

export {};
