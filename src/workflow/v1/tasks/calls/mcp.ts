/**
 * `call: mcp` (activity `sw.mcp`, adapters/mcp; feature v1-mcp-calls): the HTTP transport's
 * endpoint authentication resolved (a named policy replaced by its definition); the summary
 * names the method, its tool/prompt/resource and the server.
 */
import type { Json } from '../../../../common/model';
import { MCP_CALL_ACTIVITY } from '../../../../common/call-kinds';
import { FEATURE_V1_MCP_CALLS } from '../../../../common/features';
import { endpointOf, type CallKind } from './activity';

const objectOf = (v: Json | undefined) => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, Json>) : undefined);

export const MCP_CALL: CallKind = {
  type: 'mcp',
  activity: MCP_CALL_ACTIVITY,
  since: FEATURE_V1_MCP_CALLS,
  local: true,
  // The one async builder: mcp's arguments were always built in an async function of their own,
  // whose turns concurrent branches' commands are ordered by (./activity.ts): keep it one.
  async prepare({ w }, resolveAuthentication) {
    const http = objectOf(objectOf(w.transport)?.http);
    const endpoint = endpointOf(http?.endpoint);
    if (http && endpoint) {
      await resolveAuthentication(endpoint);
      http.endpoint = endpoint as Json;
    }
  },
  target({ w }) {
    const transport = objectOf(w.transport);
    const endpoint = endpointOf(objectOf(transport?.http)?.endpoint);
    const p = objectOf(w.parameters);
    const subject = p?.name ?? p?.uri;
    const server = endpoint?.uri ?? String(objectOf(transport?.stdio)?.command ?? '');
    return `mcp ${String(w.method)}${typeof subject === 'string' ? ` ${subject}` : ''} @ ${server}`;
  },
};
