/**
 * A 1.0 `call: a2a` → what to ask the agent (pure). The spec names A2A's JSON-RPC methods as A2A
 * 0.3 spelled them (`message/send`, `tasks/get`, ...) and its example writes 0.3 messages
 * (`role: user`, parts with `kind: text`); the maintained A2A SDK speaks A2A 1.0 (proto JSON:
 * `role: ROLE_USER`, parts `{ text }`). Parameters are accepted in either spelling and read into
 * the SDK's 1.0 request types; outputs are A2A 1.0 JSON.
 */
import { ConfigurationError, type Json } from '../../src/adapter-sdk';

type Obj = Record<string, Json>;
const isObj = (v: unknown): v is Obj => !!v && typeof v === 'object' && !Array.isArray(v);

/** The methods of the spec's `with.method` enum. */
export const A2A_METHODS = [
  'message/send',
  'message/stream',
  'tasks/get',
  'tasks/list',
  'tasks/cancel',
  'tasks/resubscribe',
  'tasks/pushNotificationConfig/set',
  'tasks/pushNotificationConfig/get',
  'tasks/pushNotificationConfig/list',
  'tasks/pushNotificationConfig/delete',
  'agent/getAuthenticatedExtendedCard',
] as const;
export type A2AMethod = (typeof A2A_METHODS)[number];

/** Where the agent is: its agent card (resolved by the SDK), or its JSON-RPC endpoint. */
export interface A2ATarget {
  /** The URL of the agent card, or of the JSON-RPC endpoint. */
  url: string;
  kind: 'agentCard' | 'server';
  /** The (evaluated) authentication policy of the endpoint, if any. */
  authentication?: Json;
}

export interface A2ACall {
  method: A2AMethod;
  target: A2ATarget;
  /** The parameters, in A2A 1.0 proto JSON. */
  params: Obj;
}

/** An endpoint: a URI, or `{ uri, authentication }`. */
function endpointOf(v: Json | undefined): { uri?: string; authentication?: Json } | undefined {
  if (typeof v === 'string') return { uri: v };
  return isObj(v) ? { uri: typeof v.uri === 'string' ? v.uri : undefined, authentication: v.authentication } : undefined;
}

/** The evaluated `with` of a `call: a2a` → the call (a definition problem: ConfigurationError). */
export function a2aCall(args: Json, messageId: () => string): A2ACall {
  if (!isObj(args)) throw new ConfigurationError('call: a2a needs `with` arguments');
  const method = args.method;
  if (typeof method !== 'string' || !(A2A_METHODS as readonly string[]).includes(method)) {
    throw new ConfigurationError(`call: a2a: method ${JSON.stringify(method)} is not an A2A method (${A2A_METHODS.join(', ')})`);
  }
  const target = targetOf(args);
  let params: Json = args.parameters ?? {};
  if (typeof params === 'string') {
    const written = params;
    try {
      params = JSON.parse(written) as Json;
    } catch {
      throw new ConfigurationError(`call: a2a ${method}: parameters must be an object (or its JSON text), got ${JSON.stringify(written.slice(0, 80))}`);
    }
  }
  if (!isObj(params)) throw new ConfigurationError(`call: a2a ${method}: parameters must be an object`);
  return { method: method as A2AMethod, target, params: paramsOf(method as A2AMethod, params, messageId) };
}

/** `agentCard` wins over `server` (the spec: `server` is ignored when `agentCard` is set). */
function targetOf(args: Obj): A2ATarget {
  const card = args.agentCard;
  if (card !== undefined && card !== null) {
    const e = typeof card === 'string' ? { uri: card } : isObj(card) ? endpointOf(card.endpoint) : undefined;
    if (!e?.uri) throw new ConfigurationError('call: a2a: agentCard needs an endpoint (the URL of the agent card)');
    return { url: checkedUrl(e.uri, 'agentCard'), kind: 'agentCard', ...(e.authentication !== undefined ? { authentication: e.authentication } : {}) };
  }
  const server = endpointOf(args.server);
  if (!server?.uri) throw new ConfigurationError('call: a2a needs `agentCard` (the URL of the agent card) or `server` (the agent\'s JSON-RPC endpoint)');
  return { url: checkedUrl(server.uri, 'server'), kind: 'server', ...(server.authentication !== undefined ? { authentication: server.authentication } : {}) };
}

function checkedUrl(uri: string, where: string): string {
  try {
    return new URL(uri).toString();
  } catch {
    throw new ConfigurationError(`call: a2a: ${where} ${JSON.stringify(uri)} is not an absolute URL`);
  }
}

/** The parameters in A2A 1.0 proto JSON; 0.3 spellings translated. */
export function paramsOf(method: A2AMethod, p: Obj, messageId: () => string): Obj {
  switch (method) {
    case 'message/send':
    case 'message/stream': {
      if (!isObj(p.message)) throw new ConfigurationError(`call: a2a ${method}: parameters.message is required (an A2A message with parts)`);
      const out: Obj = { ...p, message: messageOf(p.message, messageId) };
      if (isObj(p.configuration)) out.configuration = configurationOf(p.configuration);
      return out;
    }
    case 'tasks/pushNotificationConfig/set':
      // 0.3: { taskId, pushNotificationConfig: { id, url, token, authentication } }; 1.0: flat.
      return isObj(p.pushNotificationConfig) ? { taskId: p.taskId ?? null, ...p.pushNotificationConfig } : p;
    case 'tasks/pushNotificationConfig/get':
    case 'tasks/pushNotificationConfig/delete':
      // 0.3: { id: <task id>, pushNotificationConfigId }; 1.0: { taskId, id }.
      return p.pushNotificationConfigId !== undefined ? { taskId: p.id ?? null, id: p.pushNotificationConfigId } : p;
    case 'tasks/pushNotificationConfig/list':
      return p.taskId === undefined && p.id !== undefined ? { taskId: p.id } : p;
    default:
      return p;
  }
}

const ROLES: Record<string, string> = { user: 'ROLE_USER', agent: 'ROLE_AGENT' };

/** A message with the spec's defaults (`messageId`, `role: user`), 0.3 spellings translated. */
function messageOf(m: Obj, messageId: () => string): Obj {
  const { kind: _kind, ...rest } = m;
  const role = typeof m.role === 'string' ? (ROLES[m.role] ?? m.role) : 'ROLE_USER';
  const parts = Array.isArray(m.parts) ? m.parts.map(partOf) : [];
  if (parts.length === 0) throw new ConfigurationError('call: a2a: parameters.message.parts must hold at least one part');
  return { ...rest, messageId: typeof m.messageId === 'string' && m.messageId ? m.messageId : messageId(), role, parts };
}

/** A part: 0.3's `{ kind: text|data|file }` → 1.0's `{ text }`, `{ data }`, `{ url | raw, mediaType, filename }`. */
function partOf(part: Json): Json {
  if (typeof part === 'string') return { text: part };
  if (!isObj(part)) throw new ConfigurationError(`call: a2a: a message part must be an object, got ${JSON.stringify(part)}`);
  const { kind, file, ...rest } = part;
  if (kind === 'file' && isObj(file)) {
    const out: Obj = { ...rest };
    if (file.uri !== undefined) out.url = file.uri;
    if (file.bytes !== undefined) out.raw = file.bytes;
    if (file.mimeType !== undefined) out.mediaType = file.mimeType;
    if (file.name !== undefined) out.filename = file.name;
    return out;
  }
  return file !== undefined ? { ...rest, file } : rest;
}

/** 0.3's `blocking: false` is 1.0's `returnImmediately: true`; `pushNotificationConfig` its `taskPushNotificationConfig`. */
function configurationOf(c: Obj): Obj {
  const { blocking, pushNotificationConfig, ...rest } = c;
  const out: Obj = { ...rest };
  if (blocking === false && out.returnImmediately === undefined) out.returnImmediately = true;
  if (pushNotificationConfig !== undefined && out.taskPushNotificationConfig === undefined) out.taskPushNotificationConfig = pushNotificationConfig;
  return out;
}
