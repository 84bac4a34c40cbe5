/**
 * The interpreter worker: runs the generic workflow (and its own activities) on the
 * `swflow` task queue, and the calls of swflow's built-in adapters as activities on that queue
 * too (feature `eager-calls`: the server hands them back eagerly) or as local activities
 * (`swflow.local`). Other function calls run on adapter workers (their own queues).
 *
 *   const worker = await createInterpreterWorker({ connection, definitions: ['./workflows'] });
 *   await worker.run();
 *
 * Bundling the workflow code takes seconds: build it once with bundleInterpreter() and pass
 * it as `workflowBundle` to every worker you create (tests, the conformance runner).
 */
import { PROJECT_ROOT } from '../platform/paths';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve, sep } from 'node:path';
import { bundleWorkflowCode, Worker, type BundleOptions, type NativeConnection, type WorkerOptions } from '@temporalio/worker';
import type { Definition } from '../common/model';
import { INTERPRETER_TASK_QUEUE } from '../common/contracts';
import { FEATURE_EAGER_CALLS, FEATURE_LOCAL_READS, INTERPRETER_FEATURES } from '../common/features';
import { createInterpreterActivities, type EventSink } from './activities/interpreter';
import { DefinitionRegistry } from '../definitions/registry';
import type { CatalogOptions } from './activities/catalogs';
import { adapterActivities, adapterServices, type AdapterServices, type SecretValues } from '../adapter-sdk';
import { builtinAdapters, callActivityInterceptors } from './adapter-worker';
import { dataConverterOptions } from '../codec';
import { metricsSinks } from '../metrics/sink';
import { tracingSinks, workflowInterceptorModules } from '../tracing';
import { bundleInterpreterApart } from './bundle-apart';
import { cachedBundlePath, storeBundle, workflowStackTraces, type BundleInputs } from './bundle-cache';

export type WorkflowBundle = { code: string; sourceMap?: string };

export interface InterpreterWorkerOptions {
  connection: NativeConnection;
  namespace?: string;
  /** Default `swflow` (INTERPRETER_TASK_QUEUE). */
  taskQueue?: string;
  /** Folders or files of definitions, and/or loaded definitions (0.8-family or 1.0). Default: the project's examples/. */
  definitions?: (string | Definition)[];
  /** The registry of `definitions` when the caller has one already (`swflow worker`: one index and one watch per process). */
  registry?: DefinitionRegistry;
  /** Where produced events go (the gateway, a test recorder, ...). */
  eventSinks?: EventSink[];
  /** 1.0 runs publish lifecycle CloudEvents (io.serverlessworkflow.workflow.*, ….task.*) to the event sinks. Off by default (one activity per event). */
  lifecycleEvents?: boolean;
  /** The interpreter features runs started on this worker get (default: all): tests act as an older worker with fewer. */
  features?: string[];
  /** A prebuilt bundle from bundleInterpreter() (recommended when creating many workers); default: bundled in a child process (./bundle-apart.ts) and given to the Worker by path. */
  workflowBundle?: WorkflowBundle;
  /**
   * The activities that serve calls marked `swflow.local` (run as local activities on this worker,
   * feature `local-calls`): by default swflow's built-in adapters, reading OpenAPI/proto/AsyncAPI
   * documents beside the definitions and `$SECRETS` from the environment; `swflow test` passes
   * its mocks. (Calls of other functions never run here.)
   */
  localCalls?: Record<string, (...args: any[]) => Promise<unknown>>;
  /**
   * This worker serves calls of the built-in adapters as activities on its own task queue (the
   * `localCalls` activities, with automatic heartbeats, this worker's `secrets` and documents), so
   * runs it pins get the feature `eager-calls`: the server hands such a call back to the worker in
   * its workflow task's answer (eager activity execution), no `swflow-adapters` round trip. On in
   * `swflow start` and `swflow worker` (off with `--no-eager-calls`); off by default here, so a
   * program that serves `swflow-adapters` with its own adapter worker (other secrets, mocks) keeps
   * it. Off: runs pinned here send built-in calls to `swflow-adapters`. (Activities already
   * scheduled on this queue by runs pinned elsewhere are served here either way.)
   */
  builtinCalls?: boolean;
  /** Folders where documents named by relative paths are found (1.0 schema resources); default: the definition folders. */
  documentDirs?: string[];
  /** `$SECRETS` values of local calls (default: the environment), as the adapter worker's `secrets`. */
  secrets?: SecretValues;
  /**
   * How 1.0 catalogs and functions by URI are fetched when a definition is pinned (feature
   * v1-catalogs): base folder of relative endpoints for definitions without a file, fetch timeout,
   * cache time; `$secrets` of catalog authentication default to `secrets`.
   */
  catalogs?: CatalogOptions;
  /** Extra activities to register on the interpreter queue. */
  activities?: Record<string, (...args: any[]) => Promise<unknown>>;
  /**
   * How many runs this worker keeps in its sticky cache (their sandbox state, ready for their next
   * event without a replay); the least recently used is evicted past it and replays from its
   * history when its next task comes. Default: {@link maxCachedWorkflows} (SWFLOW_MAX_CACHED_WORKFLOWS,
   * else {@link DEFAULT_MAX_CACHED_WORKFLOWS}); 0 turns the cache off (every task replays).
   */
  maxCachedWorkflows?: number;
  /** Passed through to Worker.create (e.g. identity, concurrency). */
  workerOptions?: Partial<WorkerOptions>;
  log?: (msg: string) => void;
}

export const DEFAULT_DEFINITIONS_DIR = join(PROJECT_ROOT, 'examples');

/**
 * The sticky cache's default bound. The SDK's own default follows V8's heap limit (600 runs per
 * GB above 200 MB: 2,284 with a worker's 4 GB heap), so RSS grew with every waiting run up to that
 * many: ~0.9 GB by the per-run cost below, near the Helm chart's 1 GiB limit. A waiting interpreter run costs ~0.3 MB cached
 * (bench/README.md, "Waiting runs and the sticky cache"): 500 is ~150 MB over an uncached worker,
 * ~370 MB in all, under the chart's 512 MiB request; an evicted run pays one replay of its
 * history when its event comes.
 */
export const DEFAULT_MAX_CACHED_WORKFLOWS = 500;

/**
 * The sticky cache's bound from `--max-cached-workflows`, else SWFLOW_MAX_CACHED_WORKFLOWS, else
 * {@link DEFAULT_MAX_CACHED_WORKFLOWS}: 0 (no cache) or a whole number ≥ 2 (the SDK's floor).
 */
export function maxCachedWorkflows(option?: string, env: NodeJS.ProcessEnv = process.env): number {
  const [raw, where] = option !== undefined ? [option, '--max-cached-workflows'] : [env.SWFLOW_MAX_CACHED_WORKFLOWS, 'SWFLOW_MAX_CACHED_WORKFLOWS'];
  if (raw === undefined || raw.trim() === '') return DEFAULT_MAX_CACHED_WORKFLOWS;
  const n = Number(raw.trim());
  if (!/^\d+$/.test(raw.trim()) || n === 1) throw new Error(`${where} must be 0 (no sticky cache) or a whole number of runs ≥ 2, not ${JSON.stringify(raw)}`);
  return n;
}

/**
 * A module of the workflow code, as the bundle takes it: its TypeScript source (bundled through
 * swc), also when this module runs compiled (bin/compiled.js keeps `__dirname` the sources' folder),
 * else the module beside this one (a tree built without its sources). The bundle is then the one
 * the tests run, and leaner per workflow: a webpack module compiled by esbuild to CommonJS copies
 * each export into a getter (`__toCommonJS`) every time it is evaluated, once per workflow run
 * for every module but the preloaded ones (bench/README.md, "What a worker costs").
 */
function workflowSource(rel: string): string {
  const ts = join(__dirname, '..', `${rel}.ts`);
  return existsSync(ts) ? ts : require.resolve(`../${rel}`);
}

export const WORKFLOWS_PATH = workflowSource('workflow/index');
/** The interpreter's workflow interceptors (search attributes written just before the run blocks). */
export const WORKFLOW_INTERCEPTORS_PATH = workflowSource('workflow/interceptors');
/** Preloaded into the sandbox unless stack traces are asked for: errors made in it capture no stack (see the module). */
export const STACK_TRACES_PATH = workflowSource('workflow/stack-traces');

export { workflowStackTraces };

/** Temporal's OpenTelemetry workflow interceptors with run-derived ids (bundled when the worker traces). */
export const TRACING_INTERCEPTORS_PATH = workflowSource('workflow/tracing-interceptors');
/** The jq engine, preloaded: one instance per workflow thread. */
const ENGINE_PATH = workflowSource('expr/engine');

/** swflow's own source folder (src/), where the workflow code's TypeScript is. */
const OWN_SOURCES = join(__dirname, '..') + sep;

/**
 * What the workflow's TypeScript is compiled to. The SDK's rule says es2017, which turns every
 * object spread and class field into helper calls (`_object_spread`, `_define_property`): slower
 * than the syntax, and more garbage, in the sandbox's hottest code. Node 18+ runs es2022 as is.
 * It changes no promise's timing (es2018–es2022 add no async syntax the interpreter uses: no async
 * generators), so recorded histories replay alike; class fields keep their define semantics.
 */
const WORKFLOW_TARGET = 'es2022';

/**
 * The bundler's config with swflow's own TypeScript compiled also when swflow is installed as a
 * package (the SDK's rule for `.ts` files excludes everything under node_modules, where an
 * installed swflow's sources are: `npm install swflow`, then `npx swflow start`), to
 * {@link WORKFLOW_TARGET}.
 */
function compilingOwnSources(config: WebpackConfig): WebpackConfig {
  const rules = config.module?.rules?.map((rule) => {
    if (!(rule && typeof rule === 'object' && rule.test instanceof RegExp && rule.test.test('x.ts') && rule.exclude)) return rule;
    const use = rule.use && typeof rule.use === 'object' && !Array.isArray(rule.use) ? rule.use : undefined;
    const options = use && typeof use.options === 'object' ? (use.options as { jsc?: Record<string, unknown> }) : undefined;
    return {
      ...rule,
      exclude: (file: string) => /[\\/]node_modules[\\/]/.test(file) && !file.startsWith(OWN_SOURCES),
      ...(use && options ? { use: { ...use, options: { ...options, jsc: { ...options.jsc, target: WORKFLOW_TARGET } } } } : {}),
    };
  });
  return rules ? { ...config, module: { ...config.module, rules } } : config;
}

/**
 * Bundles the generic workflow (with the jq engine preloaded once per worker thread). `options`: a
 * logger and a webpack hook (test/workflow/bundle.test.ts records the bundler's warnings);
 * `stackTraces` keeps the sandbox's stack traces (default: SWFLOW_WORKFLOW_STACK_TRACES).
 */
export async function bundleInterpreter(options: Pick<BundleOptions, 'logger' | 'webpackConfigHook'> & { tracing?: boolean; stackTraces?: boolean } = {}): Promise<WorkflowBundle> {
  const { tracing, stackTraces = workflowStackTraces(), ...bundleOptions } = options;
  // Undefined: as this process traces (src/tracing). A child process that bundles is told (./bundle-apart.ts).
  const variant = { tracing: tracing ?? workflowInterceptorModules().length > 0, stackTraces };
  // A caller watching the bundler (its hook, its logger) gets a build; others the cached bundle
  // when what it was built from is unchanged (./bundle-cache.ts).
  const cacheable = !bundleOptions.webpackConfigHook && !bundleOptions.logger;
  const hit = cacheable ? cachedBundlePath(variant) : undefined;
  if (hit) return { code: readFileSync(hit, 'utf8') };
  let inputs: BundleInputs | undefined;
  const bundle = await bundleWorkflowCode({
    workflowsPath: WORKFLOWS_PATH,
    // The interpreter itself too: its modules evaluated once per workflow thread, not once per run
    // (what a run keeps lives in its own globals: src/workflow/host/run-local.ts). The SDK freezes
    // what is preloaded: OpenTelemetry's API, which sets properties later, is required per run
    // (host/tracing.ts), and Temporal's tracing interceptors stay per run.
    preloadModules: [ENGINE_PATH, ...(stackTraces ? [] : [STACK_TRACES_PATH]), WORKFLOWS_PATH, WORKFLOW_INTERCEPTORS_PATH],
    // With tracing on (src/tracing; `tracing: false` bundles without), Temporal's OpenTelemetry
    // workflow interceptors too, after swflow's: a call's step span is active when theirs makes its StartActivity span.
    workflowInterceptorModules: [WORKFLOW_INTERCEPTORS_PATH, ...(variant.tracing ? [TRACING_INTERCEPTORS_PATH] : [])],
    logger: { log() {}, trace() {}, debug() {}, info() {}, warn(m: string) { console.warn(m); }, error(m: string) { console.error(m); } } as any,
    ...bundleOptions,
    webpackConfigHook: (config) => recordingInputs((bundleOptions.webpackConfigHook ?? ((c) => c))(compilingOwnSources(config)), (i) => (inputs = i)),
  });
  // The map's positions serve stack traces only.
  const code = latin1Only(stackTraces ? withoutSourcesContent(bundle.code) : withoutMappings(bundle.code));
  if (cacheable && inputs) storeBundle(variant, code, inputs);
  return { ...bundle, code };
}

type WebpackConfig = Parameters<NonNullable<BundleOptions['webpackConfigHook']>>[0];

/** The config with a plugin that hands over what the compilation read (for the bundle cache). */
function recordingInputs(config: WebpackConfig, record: (inputs: BundleInputs) => void): WebpackConfig {
  const plugin = {
    apply(compiler: { hooks: { done: { tap(name: string, fn: (stats: { compilation: { fileDependencies: Iterable<string>; missingDependencies: Iterable<string> } }) => void): void } } }) {
      compiler.hooks.done.tap('swflow-bundle-inputs', ({ compilation }) => record({ files: [...compilation.fileDependencies], missing: [...compilation.missingDependencies] }));
    },
  };
  return { ...config, plugins: [...(config.plugins ?? []), plugin as never] };
}

/**
 * The code with every character above U+00FF written as its `\uXXXX` escape. V8 keeps a string
 * holding any such character at two bytes per character: the bundle's ~80 (`→`, `—`, `…` in
 * comments and in a few template literals) made it 6.1 MB in every workflow thread instead of
 * 3.1 MB. The escape means the same character in a string, a template's value, a regular
 * expression and a name; only a tagged template's `raw` text would differ.
 */
export function latin1Only(code: string): string {
  return code.replace(/[\u0100-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

const SOURCE_MAP_URL = '//# sourceMappingURL=data:';

/** The bundle with its inline source map changed by `edit` (code without a map is left alone). */
function withInlineMap(code: string, edit: (map: Record<string, unknown>) => void): string {
  const at = code.lastIndexOf(SOURCE_MAP_URL);
  const data = at < 0 ? -1 : code.indexOf('base64,', at);
  if (data < 0) return code;
  const map = JSON.parse(Buffer.from(code.slice(data + 'base64,'.length).trimEnd(), 'base64').toString('utf8'));
  edit(map);
  return `${code.slice(0, at)}${SOURCE_MAP_URL}application/json;charset=utf-8;base64,${Buffer.from(JSON.stringify(map)).toString('base64')}`;
}

/**
 * The bundle with its inline source map stripped of `sourcesContent` (2.3 MB of the 2.7 MB map:
 * every source file's text, held by each workflow thread and the worker). Stack traces keep
 * their file:line:column positions; only the SDK's `showStackTraceSources` would read the texts.
 */
export function withoutSourcesContent(code: string): string {
  return withInlineMap(code, (map) => delete map.sourcesContent);
}

/**
 * The bundle with an empty source map (its `file` kept: the SDK requires a map and names the
 * bundle after it), for a sandbox that captures no stacks (./stack-traces, the default): no frame
 * is ever mapped, and the workflow thread would otherwise hold the mappings and the SDK's parser
 * of them (source-map's wasm) for its life.
 */
export function withoutMappings(code: string): string {
  return withInlineMap(code, (map) => {
    for (const key of Object.keys(map)) if (key !== 'version' && key !== 'file') delete map[key];
    Object.assign(map, { sources: [], names: [], mappings: '' });
  });
}

export async function createInterpreterWorker(opts: InterpreterWorkerOptions): Promise<Worker> {
  const definitions = opts.definitions ?? [DEFAULT_DEFINITIONS_DIR];
  const registry = opts.registry ?? new DefinitionRegistry(definitions, { log: opts.log });
  // Indexed and watched from the start: broken files are said now, and a run start stats one file.
  void registry.watch().catch(() => undefined);
  // One worker's secrets and OAuth2 tokens, for local calls and for fetching 1.0 schema resources.
  const services = adapterServices(opts.secrets);
  const localCalls = opts.localCalls ?? builtinCallActivities(definitions.filter((d): d is string => typeof d === 'string'), services);
  const activities = {
    ...localCalls,
    ...createInterpreterActivities({ registry, eventSinks: opts.eventSinks, connection: opts.connection, namespace: opts.namespace, log: opts.log, lifecycleEvents: opts.lifecycleEvents, features: pinnedFeatures(opts), catalogs: { ...(opts.secrets ? { secrets: opts.secrets } : {}), ...opts.catalogs }, services, documentDirs: opts.documentDirs ?? definitionDirs(definitions) }),
    ...(opts.activities ?? {}),
  };
  const extra = opts.workerOptions ?? {};
  const cached = opts.maxCachedWorkflows ?? maxCachedWorkflows();
  // Bundled in a child process unless given (webpack's memory is not kept by the worker), and
  // given by path: the Worker reads the file while it is created and keeps no copy of the text.
  const bundled = opts.workflowBundle ? undefined : await bundleInterpreterApart({ tracing: workflowInterceptorModules().length > 0 });
  try {
    return await Worker.create({
      connection: opts.connection,
      namespace: opts.namespace ?? 'default',
      taskQueue: opts.taskQueue ?? INTERPRETER_TASK_QUEUE,
      workflowBundle: opts.workflowBundle ?? { codePath: bundled!.codePath },
      activities,
      // Encrypted payloads when codec keys are configured (docs/encryption.md).
      ...dataConverterOptions(),
      maxCachedWorkflows: cached,
      // The SDK lowers concurrent workflow tasks to the cache's size anyway (with a warning).
      ...(cached > 0 && cached < 40 && !extra.tuner ? { maxConcurrentWorkflowTaskExecutions: cached } : {}),
      ...extra,
      // Runs report to the `swflow.metrics` sink when this process serves metrics (src/metrics).
      // …and workflow spans to the `exporter` sink when it traces (src/tracing).
      sinks: { ...metricsSinks(), ...tracingSinks(), ...extra.sinks },
      // A local call arrives as its arguments plus the `swflow-call` header: put it back together.
      interceptors: {
        ...extra.interceptors,
        // autoHeartbeat: built-in calls served here as activities (eager-calls) heartbeat as on an adapter worker.
        activity: [...callActivityInterceptors(), ...(extra.interceptors?.activity ?? [])],
      },
    });
  } finally {
    bundled?.remove();
  }
}

/** The features runs pinned on this worker get: without `eager-calls` and `local-reads` when it does not serve built-in calls. */
function pinnedFeatures(opts: InterpreterWorkerOptions): string[] | undefined {
  if (opts.builtinCalls) return opts.features;
  return (opts.features ?? INTERPRETER_FEATURES).filter((f) => f !== FEATURE_EAGER_CALLS && f !== FEATURE_LOCAL_READS);
}

/** The built-in adapters' activities, for local calls (documents found relative to these folders or files). */
function builtinCallActivities(definitionPaths: string[], services: AdapterServices): Record<string, (...args: any[]) => Promise<unknown>> {
  const baseDirs = definitionDirs(definitionPaths);
  return adapterActivities(builtinAdapters({ baseDirs }), services) as Record<string, (...args: any[]) => Promise<unknown>>;
}

/** The folders of the definitions given by path (a file's folder, or the folder itself). */
function definitionDirs(definitions: (string | Definition)[]): string[] {
  return definitions.filter((d): d is string => typeof d === 'string').map((p) => (existsSync(p) && statSync(p).isFile() ? dirname(p) : p));
}
