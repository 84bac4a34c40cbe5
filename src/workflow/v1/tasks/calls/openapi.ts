/**
 * `call: openapi` (activity `sw.openapi`, adapters/rest): the arguments' authentication policy
 * resolved; summarized as `openapi <operationId>`.
 */
import { OPENAPI_CALL_ACTIVITY } from '../../../../common/call-kinds';
import type { AuthenticationHolder, CallKind } from './activity';

export const OPENAPI_CALL: CallKind = {
  type: 'openapi',
  activity: OPENAPI_CALL_ACTIVITY,
  local: true,
  prepare: ({ w }, resolveAuthentication) => resolveAuthentication(w as AuthenticationHolder),
  target: ({ w }) => `openapi ${String(w.operationId)}`,
};
