/**
 * `call: a2a` (activity `sw.a2a`, adapters/a2a; feature v1-a2a-calls): the agent card's endpoint
 * (its credentials also reach the agent) or the server's, its authentication policy resolved;
 * summarized as `a2a <method> <uri>`. Never a local activity: it follows a long agent task with
 * heartbeats, which a local activity has not.
 */
import type { Json } from '../../../../common/model';
import { A2A_CALL_ACTIVITY } from '../../../../common/call-kinds';
import { FEATURE_V1_A2A_CALLS } from '../../../../common/features';
import { endpointOf, type CallKind } from './activity';

const cardOf = (w: Record<string, Json>) => (w.agentCard && typeof w.agentCard === 'object' && !Array.isArray(w.agentCard) ? (w.agentCard as Record<string, Json>) : undefined);

/** The endpoint the call reaches: the agent card's, else the server's. */
function agentEndpoint(w: Record<string, Json>) {
  const card = cardOf(w);
  return endpointOf(card ? card.endpoint : w.server);
}

export const A2A_CALL: CallKind = {
  type: 'a2a',
  activity: A2A_CALL_ACTIVITY,
  since: FEATURE_V1_A2A_CALLS,
  local: false,
  prepare({ w }, resolveAuthentication) {
    const e = agentEndpoint(w);
    if (!e) return undefined;
    const card = cardOf(w);
    if (card) card.endpoint = e as Json;
    else w.server = e as Json;
    return resolveAuthentication(e);
  },
  target: ({ w }) => `a2a ${String(w.method)} ${agentEndpoint(w)?.uri ?? ''}`,
};
