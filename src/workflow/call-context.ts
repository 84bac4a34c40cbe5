/**
 * The wire format of a function call, one for 0.8 and 1.0 calls: the activity's input is the
 * evaluated arguments and the rest of the {@link FunctionCall} is its `swflow-call` header
 * (interceptors.ts), or, on runs recorded before that format (0.8 without `call-context-headers`,
 * 1.0 without `v1-call-headers`), the whole FunctionCall as the input. And the call's
 * `secretContext`: what its secret expressions read besides the secrets.
 */
import type { Json } from '../common/model';
import type { FunctionCall } from '../common/contracts';
import { secretContextOf } from '../expr/reads';
import type { ExprScope } from '../expr';
import { FEATURE_MINIMAL_SECRET_CONTEXT } from '../common/features';
import { withCallContext } from './interceptors';

/**
 * The args array of one attempt of a call: `[arguments]` marked with the call's context, or
 * `[call]`. A new array per attempt: the interceptor finds the context by the array's identity.
 */
export function callActivityArgs(call: FunctionCall, headers: boolean): unknown[] {
  if (!headers) return [call];
  const { arguments: args, ...context } = call;
  return withCallContext([args], context);
}

/**
 * The call's `secretContext`: the whole data and scope, or with minimal-secret-context only what
 * `expressions` (secret arguments, auth properties) read (src/expr/reads.ts; nothing read: none).
 */
export function secretContextOfCall(features: ReadonlySet<string>, expressions: string[], data: Json, scope: ExprScope): Pick<FunctionCall, 'secretContext'> {
  if (!features.has(FEATURE_MINIMAL_SECRET_CONTEXT)) return { secretContext: { data, scope } };
  const context = secretContextOf(expressions, data, scope);
  return context ? { secretContext: context } : {};
}
