/**
 * `call: grpc` (activity `sw.grpc`, adapters/rpc; feature v1-grpc-asyncapi-calls): the service's
 * authentication policy resolved; summarized as `grpc <service>/<method>`.
 */
import type { Json } from '../../../../common/model';
import { GRPC_CALL_ACTIVITY } from '../../../../common/call-kinds';
import { FEATURE_V1_GRPC_ASYNCAPI_CALLS } from '../../../../common/features';
import type { AuthenticationHolder, CallKind } from './activity';

type Service = AuthenticationHolder & { name?: string };
const serviceOf = (w: Record<string, Json>) => (w.service ?? {}) as Service;

export const GRPC_CALL: CallKind = {
  type: 'grpc',
  activity: GRPC_CALL_ACTIVITY,
  since: FEATURE_V1_GRPC_ASYNCAPI_CALLS,
  local: true,
  prepare: ({ w }, resolveAuthentication) => resolveAuthentication(serviceOf(w)),
  target: ({ w }) => `grpc ${String(serviceOf(w).name)}/${String(w.method)}`,
};
