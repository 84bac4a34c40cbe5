/**
 * Serverless Workflow 1.0.x documents as the interpreter receives them (types only: safe to
 * import from the workflow sandbox).
 *
 * Unlike 0.8, a 1.0 document is not rewritten into a canonical model: its task tree already is
 * one, runtime expressions such as `$workflow.definition` must see the document as written, and
 * errors point into it with JSON pointers (`/do/0/getPet`). The loader (./load.ts) validates it
 * and wraps it in a {@link V1Definition}; the executor (src/workflow/v1) walks it.
 */
import type { Json } from './model';

/** The discriminator of a pinned 1.0 definition (0.8 definitions have no `kind`). */
export const V1_KIND = 'sw-1.0';

/** A validated 1.0.x document, ready to run. Plain JSON: it travels through Temporal history. */
export interface V1Definition {
  kind: typeof V1_KIND;
  /** `<namespace>/<name>`: the Temporal workflow type (with `@<version>` to pin a version). */
  id: string;
  version: string;
  /** For the Web UI: `document.title`, else the name. */
  name: string;
  namespace: string;
  /** `document.dsl` as written (1.0.0 … 1.0.3, or later 1.x). */
  dsl: string;
  /** The document as written (parsed JSON/YAML): `$workflow.definition`. */
  workflow: WorkflowDocument;
}

/** The names under which a task list item, a switch case, or an extension is keyed. */
export type Named<T> = Record<string, T>;
export type TaskList = Named<Task>[];

export interface DocumentHeader {
  dsl: string;
  namespace: string;
  name: string;
  version: string;
  title?: string;
  summary?: string;
  tags?: Record<string, string>;
  metadata?: Record<string, Json>;
}

export interface SchemaDef {
  format?: string;
  document?: Json;
  resource?: ExternalResource;
}

export interface InputDef {
  schema?: SchemaDef;
  from?: string | Json;
}

export interface OutputDef {
  schema?: SchemaDef;
  as?: string | Json;
}

export type ExportDef = OutputDef;

/** An inline duration (`{ seconds: 3 }`), an ISO 8601 string, or a runtime expression. */
export type Duration = string | { days?: number; hours?: number; minutes?: number; seconds?: number; milliseconds?: number };

export interface TimeoutDef {
  after: Duration;
}

export interface ErrorDef {
  type: string;
  status: number;
  instance?: string;
  title?: string;
  detail?: string;
}

export interface RetryPolicy {
  when?: string;
  exceptWhen?: string;
  delay?: Duration;
  backoff?: { constant?: Json; exponential?: Json; linear?: Json };
  limit?: { attempt?: { count?: number; duration?: Duration }; duration?: Duration };
  jitter?: { from: Duration; to: Duration };
}

export interface EventFilter {
  with?: Record<string, Json>;
  correlate?: Record<string, { from: string; expect?: string }>;
}

export interface ConsumptionStrategy {
  all?: EventFilter[];
  any?: EventFilter[];
  one?: EventFilter;
  until?: string | ConsumptionStrategy;
}

export interface ExternalResource {
  name?: string;
  endpoint: Endpoint;
}

export type Endpoint = string | { uri: string; authentication?: Authentication };

export interface Authentication {
  use?: string;
  basic?: { username?: string; password?: string; use?: string };
  bearer?: { token?: string; use?: string };
  digest?: { username?: string; password?: string; use?: string };
  oauth2?: Record<string, Json>;
  oidc?: Record<string, Json>;
  certificate?: Record<string, Json>;
}

export type FlowDirective = 'continue' | 'exit' | 'end' | string;

export interface SubscriptionIterator {
  item?: string;
  at?: string;
  do?: TaskList;
  output?: OutputDef;
  export?: ExportDef;
}

/**
 * One task: the base properties plus exactly one of the type keys (`call`, `do`, `fork`, `emit`,
 * `for`, `listen`, `raise`, `run`, `set`, `switch`, `try`, `wait`). `do` also appears on `for`.
 */
export interface Task {
  if?: string;
  input?: InputDef;
  output?: OutputDef;
  export?: ExportDef;
  timeout?: string | TimeoutDef;
  then?: FlowDirective;
  metadata?: Record<string, Json>;

  call?: string;
  with?: Record<string, Json>;
  do?: TaskList;
  fork?: { branches: TaskList; compete?: boolean };
  emit?: { event: { with?: Record<string, Json> } };
  for?: { each?: string; in: string | Json[]; at?: string };
  while?: string;
  listen?: { to: ConsumptionStrategy; read?: 'data' | 'envelope' | 'raw' };
  foreach?: SubscriptionIterator;
  raise?: { error: string | ErrorDef };
  run?: {
    await?: boolean;
    return?: 'stdout' | 'stderr' | 'code' | 'all' | 'none';
    container?: Record<string, Json>;
    script?: { language: string; code?: string; source?: ExternalResource; stdin?: string; arguments?: string[]; environment?: Record<string, Json> };
    shell?: { command: string; stdin?: string; arguments?: string[]; environment?: Record<string, Json> };
    workflow?: { namespace: string; name: string; version: string; input?: Json };
  };
  set?: string | Record<string, Json>;
  switch?: Named<{ when?: string; then: FlowDirective }>[];
  try?: TaskList;
  catch?: {
    errors?: { with?: Partial<Record<'type' | 'status' | 'instance' | 'title' | 'details', Json>> };
    as?: string;
    when?: string;
    exceptWhen?: string;
    retry?: string | RetryPolicy;
    do?: TaskList;
    /** After 1.0.3: where to go once the error is handled. */
    then?: FlowDirective;
  };
  wait?: Duration;
}

/** `use.extensions` entry: task lists run before/after every task of the `extend` type (v1/extensions.ts). */
export interface Extension {
  /** A task type (`composite` is `do`) or `all`. */
  extend: string;
  when?: string;
  before?: TaskList;
  after?: TaskList;
}

export interface WorkflowDocument {
  document: DocumentHeader;
  input?: InputDef;
  use?: {
    authentications?: Named<Authentication>;
    errors?: Named<ErrorDef>;
    extensions?: Named<Extension>[];
    functions?: Named<Task>;
    retries?: Named<RetryPolicy>;
    secrets?: string[];
    timeouts?: Named<TimeoutDef>;
    catalogs?: Named<{ endpoint: Endpoint }>;
  };
  do: TaskList;
  timeout?: string | TimeoutDef;
  output?: OutputDef;
  schedule?: Record<string, Json>;
  evaluate?: { language?: string; mode?: string };
}

/** The task type keys, in the order the schema lists them. */
export const TASK_TYPES = ['call', 'do', 'fork', 'emit', 'for', 'listen', 'raise', 'run', 'set', 'switch', 'try', 'wait'] as const;
export type TaskType = (typeof TASK_TYPES)[number];

/** The type of a task: its type key (`do` counts only without `for`). */
export function taskTypeOf(task: Task): TaskType | undefined {
  if (task.for !== undefined) return 'for';
  for (const t of TASK_TYPES) if ((task as Record<string, unknown>)[t] !== undefined) return t;
  return undefined;
}

/** The name and body of a task list item (`{ name: task }`). */
export function entryOf<T>(item: Named<T>): [string, T] {
  const [name] = Object.keys(item);
  return [name, item[name]];
}

/** Call targets the spec defines (anything else names a function). */
export const BUILTIN_CALLS = ['asyncapi', 'grpc', 'http', 'openapi', 'a2a', 'mcp'] as const;

/**
 * A function document the run calls (a cataloged function `name:version@catalog`, or a function
 * by URI), fetched by the interpreter worker when the definition was pinned: a 1.0 task.
 */
export interface PinnedFunction {
  task: Task;
  /** Where it was read (the URL of its document). */
  source: string;
}

export function isV1Definition(def: unknown): def is V1Definition {
  return !!def && typeof def === 'object' && (def as { kind?: unknown }).kind === V1_KIND;
}
