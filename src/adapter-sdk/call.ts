/**
 * A function call as it arrives at an adapter worker, put back together: the activity's input
 * is the evaluated arguments and the `swflow-call` header carries the rest (runs with the
 * `call-context-headers` feature); runs recorded before that sent the whole FunctionCall as the
 * input. {@link callInterceptor} turns either into one {@link FunctionCall} argument, so the
 * SDK's activities (and swflow's test mocks) read one shape.
 */
import { defaultPayloadConverter, type Headers } from '@temporalio/common';
import type { ActivityInterceptorsFactory } from '@temporalio/worker';
import type { CallContext, FunctionCall } from '../common/contracts';
import { CALL_HEADER } from '../common/calls';
import type { Json } from '../common/model';

/** Whether `v` is a whole FunctionCall (the input of runs without the header). */
export function isFunctionCall(v: unknown): v is FunctionCall {
  if (!v || typeof v !== 'object') return false;
  const c = v as Partial<FunctionCall>;
  return Boolean(c.function && typeof c.function.name === 'string' && c.workflow && typeof c.state === 'string' && 'arguments' in c);
}

/** The FunctionCall of an activity's input and headers, or undefined when it is not a function call. */
export function functionCallOf(args: readonly unknown[], headers: Headers): FunctionCall | undefined {
  const header = headers[CALL_HEADER];
  if (header) {
    const context = defaultPayloadConverter.fromPayload<CallContext>(header);
    return { ...context, arguments: (args[0] ?? null) as Json };
  }
  return isFunctionCall(args[0]) ? args[0] : undefined;
}

/**
 * The activity interceptor every adapter worker registers: it replaces the activity's input with
 * the complete {@link FunctionCall}. Activities that are not function calls pass unchanged.
 */
export const callInterceptor: ActivityInterceptorsFactory = () => ({
  inbound: {
    execute(input, next) {
      const call = functionCallOf(input.args, input.headers);
      return next(call ? { ...input, args: [call] } : input);
    },
  },
});
