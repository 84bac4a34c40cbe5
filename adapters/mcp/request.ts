/**
 * A 1.0 `call: mcp` → what to ask which MCP server (pure). The workflow has evaluated `with`
 * (`$secrets` arrive resolved in the worker) and replaced a named authentication policy by its
 * definition; what the definition gets wrong is a ConfigurationError here.
 */
import { ConfigurationError, type Json } from '../../src/adapter-sdk';

/** The methods of the spec's `call: mcp` (schema `McpMethod`). */
export const MCP_METHODS = ['tools/list', 'tools/call', 'prompts/list', 'prompts/get', 'resources/list', 'resources/read', 'resources/templates/list'] as const;
export type McpMethod = (typeof MCP_METHODS)[number];

/** The spec's default `protocolVersion`. */
export const DEFAULT_PROTOCOL_VERSION = '2025-06-18';

export type McpTransport =
  | { kind: 'stdio'; command: string; arguments: string[]; environment: Record<string, string>; cwd?: string }
  | { kind: 'http'; url: string; headers: Record<string, string>; authentication?: Json };

export interface McpCall {
  method: McpMethod;
  parameters: Record<string, Json>;
  transport: McpTransport;
  /** The client the call announces (`client`, else swflow). */
  client: { name: string; version: string };
  protocolVersion: string;
  /** Whether the definition asked for `protocolVersion` (then the server must agree to it). */
  versionRequired: boolean;
  /** `timeout` in milliseconds, when given. */
  timeoutMs?: number;
}

type Obj = Record<string, Json>;
const isObj = (v: unknown): v is Obj => !!v && typeof v === 'object' && !Array.isArray(v);
const text = (v: Json): string => (typeof v === 'string' ? v : JSON.stringify(v));

/** The call an evaluated `with` describes. */
export function mcpCall(args: Json, client: { name: string; version: string }): McpCall {
  if (!isObj(args)) throw new ConfigurationError('call: mcp needs `with` arguments');
  const method = args.method;
  if (typeof method !== 'string' || !(MCP_METHODS as readonly string[]).includes(method)) {
    throw new ConfigurationError(`call: mcp: method ${JSON.stringify(method ?? null)} is not one of ${MCP_METHODS.join(', ')}`);
  }
  const call: McpCall = {
    method: method as McpMethod,
    parameters: parametersOf(args.parameters),
    transport: transportOf(args.transport),
    client: clientOf(args.client, client),
    protocolVersion: typeof args.protocolVersion === 'string' && args.protocolVersion ? args.protocolVersion : DEFAULT_PROTOCOL_VERSION,
    versionRequired: typeof args.protocolVersion === 'string' && args.protocolVersion !== '',
  };
  if (args.timeout !== undefined && args.timeout !== null) call.timeoutMs = durationMs(args.timeout);
  if ((method === 'tools/call' || method === 'prompts/get') && typeof call.parameters.name !== 'string') throw new ConfigurationError(`call: mcp ${method} needs parameters.name`);
  if (method === 'resources/read' && typeof call.parameters.uri !== 'string') throw new ConfigurationError('call: mcp resources/read needs parameters.uri');
  return call;
}

/** `parameters`: an object, or the JSON text of one (the schema allows a string). */
function parametersOf(p: Json | undefined): Obj {
  if (p === undefined || p === null) return {};
  if (isObj(p)) return p;
  if (typeof p === 'string') {
    try {
      const parsed = JSON.parse(p) as Json;
      if (isObj(parsed)) return parsed;
    } catch {
      /* reported below */
    }
  }
  throw new ConfigurationError('call: mcp: parameters must be an object (or the JSON text of one)');
}

function transportOf(t: Json | undefined): McpTransport {
  if (!isObj(t) || (t.http === undefined) === (t.stdio === undefined)) throw new ConfigurationError('call: mcp: transport needs exactly one of http and stdio');
  const options = isObj(t.options) ? t.options : {};
  if (t.stdio !== undefined) {
    const s = t.stdio;
    if (!isObj(s) || typeof s.command !== 'string' || !s.command) throw new ConfigurationError('call: mcp: transport.stdio needs a command');
    if (s.arguments !== undefined && !Array.isArray(s.arguments)) throw new ConfigurationError('call: mcp: transport.stdio.arguments must be a list of strings');
    const stdio: McpTransport = { kind: 'stdio', command: s.command, arguments: ((s.arguments ?? []) as Json[]).map(text), environment: stringMap(s.environment, 'transport.stdio.environment') };
    // The schema has no working directory; `transport.options.cwd` (the transport's own options) gives one.
    if (typeof options.cwd === 'string' && options.cwd) stdio.cwd = options.cwd;
    return stdio;
  }
  const h = t.http;
  const endpoint = isObj(h) ? (typeof h.endpoint === 'string' ? { uri: h.endpoint } : isObj(h.endpoint) ? h.endpoint : undefined) : undefined;
  if (!isObj(h) || !endpoint || typeof endpoint.uri !== 'string' || !endpoint.uri) throw new ConfigurationError('call: mcp: transport.http needs an endpoint URI');
  let url: URL;
  try {
    url = new URL(endpoint.uri);
  } catch {
    throw new ConfigurationError(`call: mcp: transport.http.endpoint ${JSON.stringify(endpoint.uri)} is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ConfigurationError(`call: mcp: transport.http.endpoint must be http(s), not ${url.protocol}`);
  const headers = Object.fromEntries(Object.entries(stringMap(h.headers, 'transport.http.headers')).map(([k, v]) => [k.toLowerCase(), v]));
  return { kind: 'http', url: url.toString(), headers, ...(endpoint.authentication !== undefined && endpoint.authentication !== null ? { authentication: endpoint.authentication } : {}) };
}

function stringMap(v: Json | undefined, where: string): Record<string, string> {
  if (v === undefined || v === null) return {};
  if (!isObj(v)) throw new ConfigurationError(`call: mcp: ${where} must be a map of strings`);
  return Object.fromEntries(Object.entries(v).filter(([, x]) => x !== null && x !== undefined).map(([k, x]) => [k, text(x)]));
}

function clientOf(c: Json | undefined, fallback: { name: string; version: string }): { name: string; version: string } {
  if (c === undefined || c === null) return fallback;
  if (!isObj(c) || typeof c.name !== 'string' || !c.name) throw new ConfigurationError('call: mcp: client needs a name (and a version)');
  return { name: c.name, version: typeof c.version === 'string' && c.version ? c.version : fallback.version };
}

const ISO = /^P(?:(\d+(?:\.\d+)?)D)?(?:T(?:(\d+(?:\.\d+)?)H)?(?:(\d+(?:\.\d+)?)M)?(?:(\d+(?:\.\d+)?)S)?)?$/;
const UNIT_MS: Record<string, number> = { days: 86_400_000, hours: 3_600_000, minutes: 60_000, seconds: 1000, milliseconds: 1 };

/** A 1.0 duration (ISO 8601 `PnDTnHnMnS`, or `{ days, hours, minutes, seconds, milliseconds }`) in milliseconds. */
export function durationMs(d: Json): number {
  let ms: number | undefined;
  if (typeof d === 'string') {
    const m = ISO.exec(d);
    if (m && d !== 'P' && !d.endsWith('T')) ms = [m[1], m[2], m[3], m[4]].reduce((sum, x, i) => sum + Number(x ?? 0) * [86_400_000, 3_600_000, 60_000, 1000][i]!, 0);
  } else if (isObj(d) && Object.keys(d).length > 0 && Object.entries(d).every(([k, v]) => k in UNIT_MS && typeof v === 'number' && v >= 0)) {
    ms = Object.entries(d).reduce((sum, [k, v]) => sum + (v as number) * UNIT_MS[k]!, 0);
  }
  if (ms === undefined || !(ms > 0)) throw new ConfigurationError(`call: mcp: timeout ${JSON.stringify(d)} is not a duration (ISO 8601 like PT30S, or { seconds: 30 })`);
  return Math.round(ms);
}
