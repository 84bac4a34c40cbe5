/**
 * The registry of the 1.0 call kinds an adapter activity serves, by `call:` name (the models:
 * zigflow's one task builder per call type, sdk-java's CallableTaskBuilder per kind). Each
 * kind's module declares its activity (src/common/call-kinds.ts, which its adapter registers),
 * the feature that gates it, whether it may run locally or eagerly, and how its arguments and
 * Web UI summary are built; ./activity.ts makes the call. A call of another name is a function
 * (./function.ts) or an activity of the default catalog (./custom.ts): ../call.ts dispatches.
 *
 * Adding a call kind: its activity's constant in src/common/call-kinds.ts (its adapter
 * registers it), one module here beside the others, and one line below.
 */
import { BUILTIN_CALLS } from '../../../../common/model-v1';
import type { TaskAt } from '../../context';
import { WorkflowError } from '../../errors';
import type { CallKind } from './activity';
import { A2A_CALL } from './a2a';
import { ASYNCAPI_CALL } from './asyncapi';
import { GRPC_CALL } from './grpc';
import { HTTP_CALL } from './http';
import { MCP_CALL } from './mcp';
import { OPENAPI_CALL } from './openapi';

export const CALL_KINDS: Readonly<Record<string, CallKind>> = {
  http: HTTP_CALL,
  openapi: OPENAPI_CALL,
  grpc: GRPC_CALL,
  asyncapi: ASYNCAPI_CALL,
  mcp: MCP_CALL,
  a2a: A2A_CALL,
};

/**
 * The kind of a built-in call (`call: http`, ...), or undefined for a function. A kind served
 * since a feature fails as unsupported (501) on runs recorded before it, as every call kind the
 * spec defines and swflow does not serve.
 */
export function builtinCallKind(call: string, at: TaskAt, features: ReadonlySet<string>): CallKind | undefined {
  const kind = Object.hasOwn(CALL_KINDS, call) ? CALL_KINDS[call] : undefined;
  if (kind && (kind.since === undefined || features.has(kind.since))) return kind;
  if ((BUILTIN_CALLS as readonly string[]).includes(call)) {
    throw WorkflowError.standard('runtime', at.reference, `call: ${call} is not supported by this runtime yet`, 501);
  }
  return undefined;
}
