/**
 * The event gateway: CloudEvents over HTTP (binary or structured mode, or a batch) in, signals
 * to workflow instances out. An event is answered 202 only once Temporal has durably taken it
 * (the signal, or signal-with-start, returned), so an accepted event is never lost; an event
 * nothing consumes is refused with 404 and the reason, a malformed one with 400; when Temporal
 * cannot be reached the answer is 503 and the sender should retry.
 *
 *   POST /            one CloudEvent, or a batch (application/cloudevents-batch+json)
 *   GET  /health      200 while the gateway runs
 *
 * Routing (src/gateway/routing.ts): by the definitions' consumed events and correlation; the
 * `swflowworkflowid` extension attribute delivers an event to that workflow id directly.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { HTTP, ValidationError, type CloudEvent, type CloudEventV1 } from 'cloudevents';
import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError } from '@temporalio/common';
import type { Client } from '@temporalio/client';
import { EVENT_SIGNAL, INTERPRETER_TASK_QUEUE, type CloudEventJson } from '../common/contracts';
import type { WorkflowDef } from '../dsl/model';
import { route, type Delivery } from './routing';

export const GATEWAY_PORT = 8090;
/** Extension attribute naming the target workflow id (CloudEvents attribute names: lowercase alphanumerics). */
export const TARGET_ATTRIBUTE = 'swflowworkflowid';
const MAX_BODY = 1 << 20;

export interface GatewayOptions {
  client: Client;
  /** The definitions to route by (called per request, so new files are seen). */
  definitions: () => Promise<WorkflowDef[]>;
  taskQueue?: string;
  host?: string;
  /** 0 = any free port. Default 8090. */
  port?: number;
  log?: (msg: string) => void;
}

export interface Gateway {
  url: string;
  server: Server;
  close(): Promise<void>;
}

interface Delivered {
  workflowId: string;
  runId?: string;
  started: boolean;
  /** This event had already started its instance (a redelivery): nothing new was done. */
  duplicate?: boolean;
}

interface EventResult {
  id?: string;
  type?: string;
  status: number;
  delivered?: Delivered[];
  error?: string;
}

class HttpError extends Error {
  constructor(readonly status: number, message: string) {
    super(message);
  }
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let size = 0;
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) {
        reject(new HttpError(413, `the request body is larger than ${MAX_BODY} bytes`));
        req.destroy();
      } else chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** A CloudEvent as the workflow receives it: structured JSON, extensions at the top level. */
function toJson(e: CloudEventV1<unknown>): CloudEventJson {
  const json = { ...(typeof (e as CloudEvent<unknown>).toJSON === 'function' ? (e as CloudEvent<unknown>).toJSON() : e) } as Record<string, unknown>;
  delete json.data_base64;
  return json as unknown as CloudEventJson;
}

function parseEvents(req: IncomingMessage, body: string): CloudEventJson[] {
  try {
    const parsed = HTTP.toEvent({ headers: req.headers as Record<string, string>, body });
    const list = Array.isArray(parsed) ? parsed : [parsed];
    if (!list.length) throw new HttpError(400, 'the batch is empty');
    // The parser does not insist on the required attributes (id, source, type): validate.
    for (const e of list) if (typeof (e as CloudEvent<unknown>).validate === 'function') (e as CloudEvent<unknown>).validate();
    return list.map(toJson);
  } catch (err) {
    if (err instanceof HttpError) throw err;
    const problems =
      err instanceof ValidationError && Array.isArray(err.errors) && err.errors.length
        ? err.errors.map((p: any) => (typeof p === 'string' ? p : `${p.instancePath ? `${p.instancePath} ` : ''}${p.message}`)).join('; ')
        : (err as Error).message;
    throw new HttpError(400, `not a valid CloudEvent: ${problems}`);
  }
}

function isUnavailable(err: unknown): boolean {
  const code = (err as { code?: number }).code;
  return code === 14 /* UNAVAILABLE */ || code === 4 /* DEADLINE_EXCEEDED */ || /connect|unavailable/i.test((err as Error).message ?? '');
}

export async function startGateway(opts: GatewayOptions): Promise<Gateway> {
  const taskQueue = opts.taskQueue ?? INTERPRETER_TASK_QUEUE;
  const log = opts.log ?? (() => {});

  async function deliver(d: Delivery | { workflowId: string; start: false }, e: CloudEventJson): Promise<Delivered | undefined> {
    if (d.start && 'workflowType' in d) {
      try {
        const handle = await opts.client.workflow.signalWithStart(d.workflowType, {
          taskQueue,
          workflowId: d.workflowId,
          args: [{}],
          signal: EVENT_SIGNAL,
          signalArgs: [e],
          // An instance named after its start event is started once, however often the event comes.
          ...(d.keyedBy === 'event' ? { workflowIdReusePolicy: 'REJECT_DUPLICATE' as const } : {}),
        });
        return { workflowId: d.workflowId, runId: handle.signaledRunId, started: true };
      } catch (err) {
        if (err instanceof WorkflowExecutionAlreadyStartedError) return { workflowId: d.workflowId, started: false, duplicate: true };
        throw err;
      }
    }
    try {
      await opts.client.workflow.getHandle(d.workflowId).signal(EVENT_SIGNAL, e);
      return { workflowId: d.workflowId, started: false };
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) return undefined; // no running instance of that name
      throw err;
    }
  }

  async function handleEvent(e: CloudEventJson, definitions: WorkflowDef[]): Promise<EventResult> {
    const base = { id: e.id, type: e.type };
    const target = e[TARGET_ATTRIBUTE];
    const deliveries = typeof target === 'string' && target ? [{ workflowId: target, start: false as const }] : route(definitions, e);
    if (!deliveries.length) {
      return { ...base, status: 404, error: `no workflow definition consumes events of type "${e.type}" from source "${e.source}" (with the correlation attributes its event definitions require)` };
    }
    const delivered: Delivered[] = [];
    for (const d of deliveries) {
      const r = await deliver(d, e);
      if (r) delivered.push(r);
    }
    if (!delivered.length) {
      return { ...base, status: 404, error: `no running instance to deliver it to (${deliveries.map((d) => d.workflowId).join(', ')}), and no definition starts with it` };
    }
    for (const r of delivered) log(`event ${e.type} ${e.id} → ${r.workflowId}${r.started ? ' (started)' : ''}${r.duplicate ? ' (already delivered)' : ''}`);
    return { ...base, status: 202, delivered };
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const reply = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    const path = (req.url ?? '/').split('?')[0];
    if (req.method === 'GET' && path === '/health') return reply(200, { ok: true });
    if (path !== '/' && path !== '/events') return reply(404, { error: `nothing at ${path}; POST CloudEvents to /` });
    if (req.method !== 'POST') return reply(405, { error: 'POST CloudEvents here' });
    try {
      const events = parseEvents(req, await readBody(req));
      const definitions = await opts.definitions();
      const results: EventResult[] = [];
      for (const e of events) results.push(await handleEvent(e, definitions));
      const status = results.every((r) => r.status === 202) ? 202 : results.find((r) => r.status !== 202)!.status;
      reply(status, events.length === 1 ? results[0] : { results });
    } catch (err) {
      if (err instanceof HttpError) return reply(err.status, { error: err.message });
      if (isUnavailable(err)) return reply(503, { error: `Temporal is not reachable; the event was not accepted, send it again (${(err as Error).message})` });
      log(`error: ${(err as Error).stack ?? err}`);
      reply(500, { error: `the event was not accepted: ${(err as Error).message}` });
    }
  }

  const server = createServer((req, res) => void handle(req, res));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? GATEWAY_PORT, opts.host ?? '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${opts.host ?? '127.0.0.1'}:${port}`,
    server,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
