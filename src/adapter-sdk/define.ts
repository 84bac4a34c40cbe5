/**
 * `defineAdapter`: an adapter is a name and the activities it serves. Each activity is
 * registered as `<adapter name>.<activity name>` — a `custom` function whose `operation` is
 * that name calls it (CWM's `<adapter>.<activity>`); swflow's protocol adapters are named `sw`
 * (`sw.rest` serves every `type: rest` function).
 */
import type { Info } from '@temporalio/activity';
import type { FunctionCall } from '../common/contracts';
import { adapterActivityType } from '../common/calls';
import type { AuthDef, Json } from '../common/model';
import type { Auth } from './auth';
import type { HttpAnswer, HttpOptions, HttpRequest } from './http';

/** What an activity knows about the call it serves, and what it can use to serve it. */
export interface ActivityContext {
  /** The function definition called: `name`, `type`, `operation`, `metadata`, `authRef`. */
  readonly function: FunctionCall['function'];
  /** The run: workflow id, run id (instanceId) and definition id. */
  readonly workflow: FunctionCall['workflow'];
  /** The state and action that made the call. */
  readonly state: string;
  readonly action?: string;
  /** A GraphQL function's `selectionSet`, when the action gives one. */
  readonly selectionSet?: string;
  /** Credentials for invoking the function (its `authRef`, or `authRef.invocation`), resolved in this worker. */
  readonly auth?: Auth;
  /** Credentials for fetching the function's resource, e.g. its OpenAPI document (`authRef.resource`). */
  readonly resourceAuth?: Auth;
  /**
   * The logical call this is (runs with the `call-ids` feature): the same every time the run makes
   * the call again (retries, a lost worker, a local call handed over, a redrive). Name what the
   * call does with it (an idempotency key), never with the activity id, which those repeats change.
   */
  readonly callId?: string;
  /** Temporal's activity info: attempt, task queue, activity id, ... */
  readonly info: Info;
  /** Aborted when Temporal cancels the call (or the worker shuts down): pass it on to what you wait for. */
  readonly signal: AbortSignal;
  /** Tells Temporal the call is alive (needed when the action sets a heartbeat timeout). Details are redacted. */
  heartbeat(details?: unknown): void;
  /**
   * A secret's value from this worker's secret values (`$SECRETS`), for credentials an adapter
   * holds itself. The value is redacted from whatever this call returns or throws.
   */
  secret(name: string): Json | undefined;
  /** Marks more values as sensitive: they are redacted from whatever this call returns or throws. */
  redact(...values: unknown[]): void;
  /**
   * Resolves an auth definition the adapter holds itself (e.g. a 1.0 authentication policy,
   * see `authentication`) as the function's `authRef` would be: `$SECRETS` expressions
   * evaluated, OAuth2 tokens from this worker's cache, every credential redacted.
   */
  authorize(def: AuthDef): Promise<Auth>;
  /**
   * `fetch` with this call's invocation auth (or `options.auth`), its cancellation signal, and
   * failures with codes (ConnectionRefused, HostNotFound, ...); a 401 with OAuth2 is retried
   * once with a new token.
   */
  fetch(request: HttpRequest, options?: HttpOptions): Promise<Response>;
  /** {@link fetch}, then the answer read (JSON or text); a status ≥ 400 fails with the status as its code. */
  http(request: HttpRequest, options?: HttpOptions): Promise<HttpAnswer>;
}

/**
 * One activity of an adapter: the evaluated arguments of the call (`$SECRETS` resolved) and its
 * context; returns the result (JSON) or throws (an {@link AdapterError} carries the code
 * `errors[].code` matches).
 */
export type AdapterActivity<A = any, R = unknown> = (args: A, ctx: ActivityContext) => R | Promise<R>;

export interface AdapterDefinition<T extends Record<string, AdapterActivity> = Record<string, AdapterActivity>> {
  /** The adapter's name: the first part of its activity types (`<name>.<activity>`). No dots or spaces. */
  name: string;
  /** The activities, by name. */
  activities: T;
  /** One line for logs and `swflow adapters`' banner. */
  description?: string;
}

const BRAND = Symbol.for('swflow.Adapter');

export interface Adapter<T extends Record<string, AdapterActivity> = Record<string, AdapterActivity>> extends AdapterDefinition<T> {
  /** Activity type → activity, as registered on a worker. */
  readonly activityTypes: Record<string, AdapterActivity>;
}

/**
 * Defines an adapter: a name and the activities it serves on an adapter worker.
 *
 * @example
 * ```ts
 * import { defineAdapter, AdapterError } from 'swflow/adapter';
 *
 * export default defineAdapter({
 *   name: 'inventory',
 *   activities: {
 *     // a `custom` function with operation "inventory.reserve"
 *     async reserve(args: { sku: string; count: number }, ctx) {
 *       const { body } = await ctx.http({ method: 'POST', url: `https://stock.example/reserve`, body: JSON.stringify(args) });
 *       return body;
 *     },
 *   },
 * });
 * ```
 */
export function defineAdapter<T extends Record<string, AdapterActivity>>(definition: AdapterDefinition<T>): Adapter<T> {
  const { name, activities } = definition;
  if (typeof name !== 'string' || !/^[^\s.]+$/.test(name)) throw new TypeError(`defineAdapter: name must be a non-empty string without dots or spaces, got ${JSON.stringify(name)}`);
  if (!activities || typeof activities !== 'object') throw new TypeError(`defineAdapter("${name}"): activities must be an object of functions`);
  const activityTypes: Record<string, AdapterActivity> = {};
  for (const [key, fn] of Object.entries(activities)) {
    if (typeof fn !== 'function') throw new TypeError(`defineAdapter("${name}"): activity "${key}" is not a function`);
    activityTypes[adapterActivityType(name, key)] = fn;
  }
  if (Object.keys(activityTypes).length === 0) throw new TypeError(`defineAdapter("${name}"): no activities`);
  const adapter = { ...definition, activityTypes } as Adapter<T>;
  Object.defineProperty(adapter, BRAND, { value: true });
  return Object.freeze(adapter);
}

/** Whether `v` was made by defineAdapter (also by another copy of the SDK). */
export function isAdapter(v: unknown): v is Adapter {
  return Boolean(v && typeof v === 'object' && (v as Record<symbol, unknown>)[BRAND]);
}
