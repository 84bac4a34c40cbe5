/**
 * The seams between the parts of swflow: names and message shapes shared by the
 * interpreter workflow, the workers, adapters, the client, the event gateway and the
 * test runner. Types and constants only: safe to import from the workflow sandbox.
 */
import type { FunctionDef, Json, WorkflowDef } from '../dsl/model';

/** The task queue of the interpreter worker (the generic workflow and its own activities). */
export const INTERPRETER_TASK_QUEUE = 'swflow';

/** The queue of the built-in adapter worker, for functions without `metadata.worker`. */
export const ADAPTER_TASK_QUEUE = 'swflow-adapters';

/** Signal that delivers one CloudEvent (structured JSON form) to a running instance. */
export const EVENT_SIGNAL = 'swflow.event';

/** Query answering {@link InstanceState}. */
export const STATE_QUERY = 'state';

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
  definition?: WorkflowDef;
  /** Subflow definitions by `id` or `id@version`, for runs whose worker does not know them. */
  subflows?: Record<string, WorkflowDef>;
  /** Interpreter state carried over an automatic continue-as-new (opaque to callers). */
  carried?: Json;
}

/**
 * What every function-call activity receives: the adapter (or a test mock) serves it from
 * the function definition, the operation and the evaluated arguments.
 *
 * Activity type: for `custom` functions the operation (CWM's `<adapter>.<activity>`),
 * otherwise `sw.<type>` (`sw.rest`, `sw.graphql`, ...). Task queue: the function's
 * `metadata.worker`, else {@link ADAPTER_TASK_QUEUE}.
 */
export interface FunctionCall {
  function: Pick<FunctionDef, 'name' | 'type' | 'operation' | 'metadata'> & { authRef?: FunctionDef['authRef'] };
  arguments: Json;
  selectionSet?: string;
  /**
   * Arguments that reference $SECRETS, still as expressions: the activity side resolves
   * them, so secret values never reach workflow history.
   */
  secretArguments?: Record<string, string>;
  /**
   * What those expressions read besides $SECRETS: the state data and the scope ($CONST,
   * $WORKFLOW, iteration variables). Not secret, so it may be in history.
   */
  secretContext?: { data: Json; scope: { constants?: Json; workflow?: Json; variables?: Record<string, Json>; functions?: Record<string, string> } };
  workflow: { id: string; instanceId: string; definitionId: string };
  state: string;
  action?: string;
}

/** What a failing service reports; `code` is matched by `errors[].code`. */
export interface ServiceErrorDetails {
  code?: string;
  message: string;
}

/** The answer of the `state` query. */
export interface InstanceState {
  definitionId: string;
  definitionVersion?: string;
  currentStates: string[];
  statesEntered: string[];
  data: Json;
  awaitedEvents: string[];
  status: 'running' | 'completed' | 'failed' | 'compensating';
}
