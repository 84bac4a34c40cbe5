/**
 * AsyncAPI documents for `asyncapi` functions: `operation` is `<AsyncAPI document URI>#<operationId>`
 * (spec 0.8, "Using Functions for Async API Service Invocations"). Documents (AsyncAPI 2.x and
 * 3.x, JSON or YAML, from the definition folders or over http(s) with the resource auth) are
 * parsed and validated by @asyncapi/parser, once per worker and location; an operation resolves
 * to its direction, channel, server and bindings.
 *
 * Direction, from the workflow's side: a 2.x `publish` operation is one the document's clients
 * publish to (the spec's example: the workflow publishes `onLightMeasured`), a 3.x `send` one the
 * described application sends — both are sent by the workflow; `subscribe` / `receive` are received.
 */
import { readFile } from 'node:fs/promises';
import type { AsyncAPIDocumentInterface, OperationInterface, Parser, ServerInterface } from '@asyncapi/parser';
import { isHttpUrl, loadOnce, operationError, type AdapterError } from '../../src/adapter-sdk';

/** The protocols this adapter speaks (AsyncAPI's protocol names). */
export const PROTOCOLS = ['mqtt', 'mqtts', 'secure-mqtt', 'http', 'https', 'amqp', 'amqps', 'kafka', 'kafka-secure'] as const;

export interface AsyncOperation {
  operationId: string;
  /** What the workflow does: send a message, or receive one. */
  direction: 'send' | 'receive';
  /** The channel's address, with its `{parameters}` (an MQTT topic, an HTTP path). */
  channel: string;
  server: {
    id: string;
    protocol: string;
    url: string;
    /** The types of the server's security schemes (`plain`, `scramSha256`, `userPassword`, ...), in the document's order (Kafka: which SASL mechanism). */
    security?: string[];
    /** The server's own bindings for its protocol (Kafka: `schemaRegistryUrl`). */
    bindings?: Record<string, unknown>;
  };
  /** The message's content type (the message's, else the document's default, else JSON). */
  contentType: string;
  /** The operation's and channel's bindings for the server's protocol (`qos`, `retain`; `method`; `is`, `exchange`, `queue`, `deliveryMode`; Kafka: `topic`, `partitions`, `replicas`, `topicConfiguration`, `groupId`, `clientId`, and the message binding's `key`). */
  bindings: Record<string, unknown>;
  document: string;
}

/** Reads a document over http(s) with the resource auth. */
export type FetchText = (url: string) => Promise<string>;

let parser: Parser | undefined;

/** Splits `doc#operationId`. */
export function splitOperation(operation: string): { document: string; operationId: string } {
  const hash = operation.lastIndexOf('#');
  if (hash <= 0 || hash === operation.length - 1) throw operationError(`operation "${operation}" is not "<AsyncAPI document URI>#<operationId>"`);
  return { document: operation.slice(0, hash), operationId: operation.slice(hash + 1) };
}

async function load(location: string, fetchText: FetchText): Promise<AsyncAPIDocumentInterface> {
  const text = isHttpUrl(location) ? await fetchText(location) : await readFile(location, 'utf8');
  // Loaded on first use: the parser (with its validator) takes half a second to load, and most workers never need it.
  parser ??= new (await import('@asyncapi/parser')).Parser();
  const { document, diagnostics } = await parser.parse(text, { source: location });
  if (!document) {
    const errors = diagnostics.filter((d) => d.severity === 0).map((d) => `${d.message}${d.path.length ? ` (at ${d.path.join('.')})` : ''}`);
    throw operationError(`${location} is not a valid AsyncAPI document: ${errors.slice(0, 5).join('; ') || 'the parser refused it'}`);
  }
  return document;
}

/** Parses a document once per location (a failed parse is tried again next time). */
export const loadDocument: (location: string, fetchText: FetchText) => Promise<AsyncAPIDocumentInterface> = loadOnce(load);

/**
 * A server's URL, its `{variables}` replaced by the values given (1.0 `server.variables`), else
 * their defaults (a value outside the variable's `enum` is refused), with the protocol as the
 * scheme when it has none; no trailing slash.
 */
function serverUrl(server: ServerInterface, given: Record<string, unknown> = {}, location = ''): string {
  let url = server.url();
  const known = server.variables().all();
  for (const name of Object.keys(given)) {
    if (!known.some((v) => v.id() === name)) throw operationError(`${location}: server "${server.id()}" has no variable "${name}"; its variables: ${known.map((v) => v.id()).join(', ') || 'none'}`);
  }
  for (const v of known) {
    const value = given[v.id()] !== undefined ? String(given[v.id()]) : v.defaultValue();
    if (value === undefined) throw operationError(`${location}: server "${server.id()}" needs a value for its variable "${v.id()}" (server.variables), it has no default`);
    const allowed = v.allowedValues();
    if (given[v.id()] !== undefined && allowed.length && !allowed.includes(value)) throw operationError(`${location}: server "${server.id()}" variable "${v.id()}" is ${JSON.stringify(value)}, not one of ${allowed.join(', ')}`);
    url = url.split(`{${v.id()}}`).join(value);
  }
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(url)) url = `${server.protocol()}://${url}`;
  return url.replace(/\/$/, '');
}

/** The AsyncAPI server protocols a 1.0 call's `protocol` selects (its secure variants too). */
const PROTOCOL_FAMILY: Record<string, string[]> = {
  mqtt: ['mqtt', 'mqtts', 'secure-mqtt'],
  http: ['http', 'https'],
  kafka: ['kafka', 'kafka-secure'],
  amqp: ['amqp', 'amqps'],
  ws: ['ws', 'wss'],
  stomp: ['stomp', 'stomps'],
};

/**
 * The server to use: the one named (0.8 `metadata.server`, 1.0 `server.name`), else the
 * operation's first server of the 1.0 call's `protocol`, else its first server with a protocol
 * spoken here.
 */
function chooseServer(op: OperationInterface, wanted: string | undefined, location: string, protocol?: string): ServerInterface {
  const servers = op.servers().all();
  const describe = servers.map((s) => `${s.id()} (${s.protocol()})`).join(', ') || 'none';
  if (wanted) {
    const server = servers.find((s) => s.id() === wanted);
    if (!server) throw operationError(`${location}: operation "${op.id()}" has no server "${wanted}" (metadata.server); its servers: ${describe}`);
    if (!(PROTOCOLS as readonly string[]).includes(server.protocol())) throw unsupported(op, describe, location);
    return server;
  }
  if (protocol) {
    const family = PROTOCOL_FAMILY[protocol] ?? [protocol];
    const server = servers.find((s) => family.includes(s.protocol()));
    if (!server) throw operationError(`${location}: operation "${op.id()}" has no server for the protocol "${protocol}"; its servers: ${describe}`);
    if (!(PROTOCOLS as readonly string[]).includes(server.protocol())) {
      throw operationError(`${location}: the asyncapi adapter does not speak ${protocol} (server "${server.id()}"); it speaks ${PROTOCOLS.join(', ')}`);
    }
    return server;
  }
  const server = servers.find((s) => (PROTOCOLS as readonly string[]).includes(s.protocol()));
  if (!server) throw unsupported(op, describe, location);
  return server;
}

function unsupported(op: OperationInterface, servers: string, location: string): AdapterError {
  return operationError(`${location}: operation "${op.id()}" has no server with a protocol the asyncapi adapter speaks (${PROTOCOLS.join(', ')}); its servers: ${servers}`);
}

/** The bindings of the operation, over the channel's, for one protocol. */
function bindingsOf(op: OperationInterface, protocol: string): Record<string, unknown> {
  const key = bindingKey(protocol);
  const channel = op.channels().all()[0];
  const bindings = { ...(channel?.bindings().get(key)?.value() ?? {}), ...(op.bindings().get(key)?.value() ?? {}) };
  // Kafka's record key is described by the message binding (a schema), not the channel's or the operation's.
  const messageKey = key === 'kafka' ? op.messages().all()[0]?.bindings().get('kafka')?.value()?.key : undefined;
  return messageKey !== undefined ? { ...bindings, key: messageKey } : bindings;
}

/** The bindings' name of a protocol (a secure variant's bindings are the plain one's). */
const bindingKey = (protocol: string): string => protocol.replace(/^(secure-mqtt|mqtts)$/, 'mqtt').replace(/^https$/, 'http').replace(/^amqps$/, 'amqp').replace(/^kafka-secure$/, 'kafka');

/** What an operation says of its server: security schemes and bindings only when it has some. */
function serverOf(server: ServerInterface, variables: Record<string, unknown> | undefined, location: string): AsyncOperation['server'] {
  const security = securityOf(server);
  const bindings: Record<string, unknown> = server.bindings().get(bindingKey(server.protocol()))?.value() ?? {};
  return { id: server.id(), protocol: server.protocol(), url: serverUrl(server, variables, location), ...(security.length ? { security } : {}), ...(Object.keys(bindings).length ? { bindings } : {}) };
}

/** The types of a server's security schemes, in the document's order. */
function securityOf(server: ServerInterface): string[] {
  return server.security().flatMap((requirements) => requirements.all().map((r) => r.scheme().type()));
}

/** Resolves `operationId` in a parsed document. */
export function findOperation(doc: AsyncAPIDocumentInterface, operationId: string, location: string, wantedServer?: string): AsyncOperation {
  const op = doc.operations().all().find((o) => o.id() === operationId);
  if (!op) {
    const ids = doc.operations().all().map((o) => o.id()).filter(Boolean);
    throw operationError(`${location} has no operation "${operationId}"; its operations: ${ids.join(', ') || 'none'}`);
  }
  return describeOperation(doc, op, operationId, location, chooseServer(op, wantedServer, location));
}

function describeOperation(doc: AsyncAPIDocumentInterface, op: OperationInterface, operationId: string, location: string, server: ServerInterface, variables?: Record<string, unknown>): AsyncOperation {
  const channel = op.channels().all()[0];
  const address = channel?.address();
  if (!address) throw operationError(`${location}: operation "${operationId}" has no channel address`);
  const message = op.messages().all()[0];
  return {
    operationId,
    direction: op.action() === 'publish' || op.action() === 'send' ? 'send' : 'receive',
    channel: address,
    server: serverOf(server, variables, location),
    contentType: message?.contentType() ?? doc.defaultContentType() ?? 'application/json',
    bindings: bindingsOf(op, server.protocol()),
    document: location,
  };
}

/** What a 1.0 `call: asyncapi` names: an operation, or a channel (with the direction the call takes), and how to pick the server. */
export interface CallTarget {
  operation?: string;
  channel?: string;
  /** `send` for a `message`, `receive` for a `subscription`. */
  direction: 'send' | 'receive';
  server?: { name?: string; variables?: Record<string, unknown> };
  protocol?: string;
}

/**
 * The operation of a 1.0 call: by its id (`operation`), or by `channel` (a 2.x channel's name,
 * or a channel's address): that channel's operation in the call's direction (2.x `publish` for a
 * message, `subscribe` for a subscription; 3.x `send` / `receive`).
 */
export function findCallOperation(doc: AsyncAPIDocumentInterface, target: CallTarget, location: string): AsyncOperation {
  const ops = doc.operations().all();
  let op: OperationInterface | undefined;
  if (target.operation) {
    op = ops.find((o) => o.id() === target.operation);
    if (!op) throw operationError(`${location} has no operation "${target.operation}"; its operations: ${ops.map((o) => o.id()).filter(Boolean).join(', ') || 'none'}`);
  } else {
    const onChannel = ops.filter((o) => o.channels().all().some((c) => c.id() === target.channel || c.address() === target.channel));
    if (!onChannel.length) {
      throw operationError(`${location} has no operation on the channel "${target.channel}"; its channels: ${doc.channels().all().map((c) => c.id()).join(', ') || 'none'}`);
    }
    const sends = (o: OperationInterface) => o.action() === 'publish' || o.action() === 'send';
    op = onChannel.find((o) => sends(o) === (target.direction === 'send'));
    if (!op) {
      const what = target.direction === 'send' ? 'publish (2.x) or send (3.x) operation to publish a message with' : 'subscribe (2.x) or receive (3.x) operation to subscribe with';
      throw operationError(`${location}: the channel "${target.channel}" has no ${what}`);
    }
  }
  const id = op.id() ?? `${target.channel} ${op.action()}`;
  const server = chooseServer(op, target.server?.name, location, target.server?.name ? undefined : target.protocol);
  return describeOperation(doc, op, id, location, server, target.server?.variables);
}

/** `operation` of an asyncapi function → the operation it names. */
export async function resolveOperation(operation: string, location: (document: string) => string, fetchText: FetchText, wantedServer?: string): Promise<AsyncOperation> {
  const { document, operationId } = splitOperation(operation);
  const where = location(document);
  return findOperation(await loadDocument(where, fetchText), operationId, where, wantedServer);
}
