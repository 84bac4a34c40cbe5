/**
 * Errors an adapter reports, with codes a definition can tell apart (`errors[].code`).
 *
 * An activity fails by throwing: an {@link AdapterError} (or any error with a string `code`)
 * becomes the Temporal failure whose type and `details[0].code` are that code, which is what
 * the interpreter matches against `errors[].code` (and what a retry policy's non-retryable
 * types list). The codes swflow's own adapters use are {@link ErrorCodes}.
 */
import { errorClass, errorMarker, SwflowError } from '../common/errors';
import type { Json } from '../common/model';

/**
 * Codes of the built-in adapters and of the SDK's HTTP helper. An HTTP status ≥ 400 is its own
 * code: `"404"`, `"503"`. Protocol adapters add theirs the same way (a gRPC adapter: the status
 * name, e.g. `UNAVAILABLE`; a GraphQL adapter: the error's `extensions.code`, else
 * `GraphQLError`).
 */
export const ErrorCodes = {
  /** Nothing listens at the address (ECONNREFUSED). */
  ConnectionRefused: 'ConnectionRefused',
  /** The connection broke before the answer was complete (ECONNRESET, EPIPE, socket closed). */
  ConnectionReset: 'ConnectionReset',
  /** The host name does not resolve (ENOTFOUND, EAI_AGAIN). */
  HostNotFound: 'HostNotFound',
  /** The service did not connect or answer within the adapter's own time limit (ETIMEDOUT, connect/headers timeout). */
  ConnectionTimeout: 'ConnectionTimeout',
  /** Any other network failure (TLS, protocol errors). */
  ConnectionError: 'ConnectionError',
  /** The answer does not parse as the content type it declares (e.g. invalid JSON). */
  InvalidResponse: 'InvalidResponse',
  /** The credentials could not be obtained (a token endpoint refused, an auth definition is incomplete). */
  AuthError: 'AuthError',
  /** The function definition is wrong (unknown operation, arguments that fit no parameter): never retried. */
  OperationError: 'OperationError',
  /** What describes the operation (an OpenAPI document, a schema) could not be fetched; may work later. */
  OperationUnavailable: 'OperationUnavailable',
  /** The thrown error had no code. */
  AdapterError: 'AdapterError',
} as const;

export interface AdapterErrorOptions {
  /** Retrying cannot help (a definition problem): Temporal and the interpreter do not retry it. Default false. */
  nonRetryable?: boolean;
  /** What was sent, e.g. `GET https://api.example/pets/7` (secrets are redacted before it leaves the worker). */
  request?: string;
  /** What the service answered (its body, parsed when JSON). */
  answer?: Json;
  /** The message the definition sees (`errors[].description`, the run's failure); default: the message. */
  serviceMessage?: string;
  cause?: unknown;
}

/**
 * A failed call, with the code a definition's `errors[].code` matches.
 *
 * @example
 * ```ts
 * throw new AdapterError('OutOfStock', `no ${args.sku} left`, { answer: body });
 * ```
 */
export class AdapterError extends SwflowError {
  static {
    // Its key is the brand AdapterErrors of earlier SDK copies set on each instance, so
    // `instanceof` and isAdapterError still recognise theirs.
    errorClass(this, 'AdapterError');
  }

  readonly code: string;
  readonly nonRetryable: boolean;
  readonly request?: string;
  readonly answer?: Json;
  readonly serviceMessage?: string;

  constructor(code: string, message: string, options: AdapterErrorOptions = {}) {
    super(message, options.cause !== undefined ? { cause: options.cause } : undefined);
    this.code = code;
    this.nonRetryable = options.nonRetryable ?? false;
    if (options.request !== undefined) this.request = options.request;
    if (options.answer !== undefined) this.answer = options.answer;
    if (options.serviceMessage !== undefined) this.serviceMessage = options.serviceMessage;
  }
}

/**
 * A function definition, or the arguments of a call, that cannot work with the operation it
 * names (an unknown field, an argument the schema does not have): retrying cannot help. An
 * adapter turns it into its failure, e.g. a non-retryable `OperationError` AdapterError.
 *
 * @example
 * ```ts
 * if (!field) throw new DefinitionError(`${endpoint} has no field "${name}"`, true);
 * ```
 */
export class DefinitionError extends SwflowError {
  static {
    errorClass(this, 'DefinitionError');
  }

  constructor(
    message: string,
    /** The service's schema said no: a newer schema might say yes (fetch it again and retry once). */
    readonly bySchema = false,
  ) {
    super(message);
  }
}

/**
 * A definition problem an adapter finds — an unknown operation, a document that does not parse,
 * arguments that fit nothing —: an `OperationError` that is never retried.
 */
export function operationError(message: string, cause?: unknown): AdapterError {
  return new AdapterError(ErrorCodes.OperationError, message, { nonRetryable: true, ...(cause !== undefined ? { cause } : {}) });
}

/** Whether `err` is an AdapterError (also one from another copy of the SDK). */
export function isAdapterError(err: unknown): err is AdapterError {
  return Boolean(err && typeof err === 'object' && (err as Record<symbol, unknown>)[errorMarker('AdapterError')]);
}

const NETWORK_CODES: Record<string, string> = {
  ECONNREFUSED: ErrorCodes.ConnectionRefused,
  ECONNRESET: ErrorCodes.ConnectionReset,
  EPIPE: ErrorCodes.ConnectionReset,
  UND_ERR_SOCKET: ErrorCodes.ConnectionReset,
  UND_ERR_CLOSED: ErrorCodes.ConnectionReset,
  ENOTFOUND: ErrorCodes.HostNotFound,
  EAI_AGAIN: ErrorCodes.HostNotFound,
  ETIMEDOUT: ErrorCodes.ConnectionTimeout,
  UND_ERR_CONNECT_TIMEOUT: ErrorCodes.ConnectionTimeout,
  UND_ERR_HEADERS_TIMEOUT: ErrorCodes.ConnectionTimeout,
  UND_ERR_BODY_TIMEOUT: ErrorCodes.ConnectionTimeout,
  TimeoutError: ErrorCodes.ConnectionTimeout,
};

/**
 * The code of a network failure (Node's and undici's error codes, found along the `cause`
 * chain that `fetch` wraps them in), and its most specific message.
 */
export function networkFailure(err: unknown): { code: string; message: string } {
  let cur: unknown = err;
  let message = (err as Error)?.message ?? String(err);
  for (let i = 0; i < 5 && cur && typeof cur === 'object'; i++) {
    const e = cur as { code?: unknown; name?: string; message?: string; cause?: unknown };
    if (e.message) message = e.message;
    const code = (typeof e.code === 'string' && NETWORK_CODES[e.code]) || (e.name && NETWORK_CODES[e.name]);
    if (code) return { code, message };
    cur = e.cause;
  }
  return { code: ErrorCodes.ConnectionError, message };
}
