/**
 * `call: asyncapi` (activity `sw.asyncapiCall`, adapters/asyncapi; feature
 * v1-grpc-asyncapi-calls): the arguments' authentication policy resolved; a `subscription` is
 * consumed as ../asyncapi-subscription.ts says (feature v1-asyncapi-subscriptions); summarized
 * as `asyncapi <operation or channel>`.
 */
import { ASYNCAPI_CALL_ACTIVITY } from '../../../../common/call-kinds';
import { FEATURE_V1_ASYNCAPI_SUBSCRIPTIONS, FEATURE_V1_GRPC_ASYNCAPI_CALLS } from '../../../../common/features';
import type { AuthenticationHolder, CallKind } from './activity';

export const ASYNCAPI_CALL: CallKind = {
  type: 'asyncapi',
  activity: ASYNCAPI_CALL_ACTIVITY,
  since: FEATURE_V1_GRPC_ASYNCAPI_CALLS,
  local: true,
  subscribes: true,
  prepare: ({ w }, resolveAuthentication) => resolveAuthentication(w as AuthenticationHolder),
  target({ w, features, subscription }) {
    // Runs before subscriptions named only the operation (a channel was not served).
    const named = w.operation ?? (features.has(FEATURE_V1_ASYNCAPI_SUBSCRIPTIONS) ? w.channel : undefined);
    return `asyncapi ${String(named)}${subscription ? ' (subscription)' : ''}`;
  },
};
