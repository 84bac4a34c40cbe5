/**
 * The run page's HTTP server: the page (src/ui/page.ts) and a small JSON API read from Temporal
 * on every request (no store of its own):
 *
 *   GET /api/config                         namespace, Temporal Web UI address
 *   GET /api/definitions                    the definitions the worker serves
 *   GET /api/definitions/<id@version>/graph a definition's graph, laid out (ELK)
 *   GET /api/runs?definition=&status=       runs (visibility: SwDefinitionId, ExecutionStatus)
 *   GET /api/runs/<workflowId>[?runId=]     a run: its pinned definition's graph and the overlay
 *                                           (`state` query + history), its input's and output's
 *                                           sizes and previews (stored ones read from the payload store)
 *   GET /api/runs/<workflowId>/input|output[?runId=&download=1]
 *                                           the whole value (JSON), shown or as a file
 *
 *   POST /api/runs/<workflowId>/cancel|suspend|resume|events|redrive
 *                                           the actions on a run (src/ui/actions.ts): only with
 *                                           the operator token configured, and each carrying it
 *
 * Page paths (`/`, `/runs/<workflowId>`, `/definitions/<id@version>`) all serve the page.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Client, WorkflowExecutionDescription, WorkflowExecutionInfo } from '@temporalio/client';
import type { Payload as CommonPayload } from '@temporalio/common';
import { isReferencePayload, decodeReferencePayload } from '@temporalio/common/lib/internal-non-workflow';
import type { temporal } from '@temporalio/proto';
import type { Definition } from '../common/model';
import { STATE_QUERY, type InstanceState } from '../common/contracts';
import { definitionHash, type DefinitionRegistry } from '../definitions/registry';
import { HttpError } from '../http/error';
import { graphOf } from './graph';
import { historyFacts, pinnedDefinition } from './history';
import { layout, type LaidOutGraph } from './layout';
import { overlayOf, type RunOverlay } from './overlay';
import { PAGE_CSS, PAGE_HTML, PAGE_JS } from './page';
import { ACTION_PATH, runActions, type RunAction } from './actions';
import { PayloadStoreDriver } from '../payloads/driver';
import { jsonText, PayloadValues } from '../payloads/values';

export interface RunPageOptions {
  client: Client;
  registry: DefinitionRegistry;
  /** The Temporal Web UI's address (`http://localhost:8233`), for links to a run; none: no links. */
  webUiUrl?: string;
  host?: string;
  port?: number;
  /** How long the `state` query may take before the page draws from the history alone. */
  queryTimeoutMs?: number;
  /** The operator token (src/operations/token.ts): with one, the page's actions on runs are on and each needs it; none: off. */
  operatorToken?: string;
}

export interface RunPage {
  url: string;
  server: Server;
  close(): Promise<void>;
}

const CLOSED_KEPT = 200;
/** Characters of a value's JSON the page shows; the rest is behind a link. */
export const PREVIEW_CHARS = 2000;

/** What the page shows of a run's input or output instead of the value itself. */
export interface ValueInfo {
  /** Bytes of the value's JSON. */
  size: number;
  /** Held in the payload store (the history holds a reference). */
  stored: boolean;
  /** The first PREVIEW_CHARS characters of its JSON. */
  preview: string;
  truncated: boolean;
  /** Where the whole value is (this server). */
  href: string;
}

/** Temporal's execution status names a run list can be filtered by (`ExecutionStatus`). */
const STATUSES = ['Running', 'Completed', 'Failed', 'Canceled', 'Terminated', 'ContinuedAsNew', 'TimedOut'];

/** A visibility query string literal. */
const literal = (s: string) => `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;

const titleCase = (s: string) => s.charAt(0) + s.slice(1).toLowerCase();

/** `RUNNING` / `CONTINUED_AS_NEW` / `CANCELLED` → `Running` / `ContinuedAsNew` / `Canceled` (the visibility query's spelling). */
function statusName(name: string | undefined): string {
  if (name === 'CANCELLED') return 'Canceled';
  return (name ?? 'UNKNOWN').split('_').map(titleCase).join('');
}

export async function startRunPage(opts: RunPageOptions): Promise<RunPage> {
  const graphs = new Map<string, Promise<LaidOutGraph>>();
  /** Closed runs do not change: their overlay is computed once (the latest CLOSED_KEPT of them). */
  const closed = new Map<string, unknown>();
  const ns = opts.client.options.namespace;
  const queryTimeout = opts.queryTimeoutMs ?? 5000;
  // The client's own payload store and codecs: the page reads what its client can.
  const converter = opts.client.options.loadedDataConverter;
  const store = converter.externalStorage?.drivers.find((d): d is PayloadStoreDriver => d instanceof PayloadStoreDriver)?.payloads;
  const values = new PayloadValues(store, converter.payloadCodecs);
  /** Stored values by key (content-addressed: a key's value never changes), so polling a running run does not read them again. */
  const storedInfos = new Map<string, Omit<ValueInfo, 'href'>>();
  const act = runActions({ client: opts.client, token: opts.operatorToken, definitions: () => opts.registry.indexedDefinitions() });

  const laidOut = (def: Definition): Promise<LaidOutGraph> => {
    const key = definitionHash(def);
    let g = graphs.get(key);
    if (!g) {
      g = layout(graphOf(def));
      graphs.set(key, g);
      g.catch(() => graphs.delete(key));
    }
    return g;
  };

  const webUiLink = (workflowId: string, runId: string) =>
    opts.webUiUrl ? `${opts.webUiUrl.replace(/\/$/, '')}/namespaces/${encodeURIComponent(ns)}/workflows/${encodeURIComponent(workflowId)}/${encodeURIComponent(runId)}/history` : undefined;

  async function definitions() {
    const { entries, broken } = await opts.registry.all();
    return {
      definitions: entries
        .map((e) => ({ id: e.def.id, version: e.def.version ?? null, title: e.def.name ?? e.def.id, dsl: 'kind' in e.def ? '1.0' : '0.8', key: e.def.version ? `${e.def.id}@${e.def.version}` : e.def.id }))
        .sort((a, b) => a.key.localeCompare(b.key)),
      broken,
    };
  }

  async function runs(definition: string | null, status: string | null) {
    const terms: string[] = [];
    if (definition) terms.push(`SwDefinitionId = ${literal(definition)}`);
    if (status) {
      if (!STATUSES.includes(status)) throw new HttpError(400, `status must be one of ${STATUSES.join(', ')}; got "${status}"`);
      terms.push(`ExecutionStatus = ${literal(status)}`);
    }
    const out: object[] = [];
    for await (const w of opts.client.workflow.list({ query: terms.join(' AND ') || undefined, pageSize: 50 })) {
      out.push(runSummary(w));
      if (out.length >= 50) break;
    }
    return { runs: out };
  }

  function runSummary(w: WorkflowExecutionInfo) {
    const sa = w.searchAttributes as Record<string, unknown[] | undefined>;
    return {
      workflowId: w.workflowId,
      runId: w.runId,
      type: w.type,
      status: statusName(w.status.name),
      startTime: w.startTime.toISOString(),
      closeTime: w.closeTime?.toISOString() ?? null,
      definition: sa.SwDefinitionId?.[0] ?? null,
      version: sa.SwDefinitionVersion?.[0] ?? null,
      state: sa.SwState?.[0] ?? null,
    };
  }

  async function run(workflowId: string, runId: string | undefined) {
    const handle = opts.client.workflow.getHandle(workflowId, runId);
    let info: WorkflowExecutionDescription;
    try {
      info = await handle.describe();
    } catch (err) {
      if ((err as Error).name === 'WorkflowNotFoundError') throw new HttpError(404, `no run with workflow id "${workflowId}"${runId ? ` and run id "${runId}"` : ''} in namespace ${ns}`);
      throw err;
    }
    const cacheKey = info.runId;
    const done = closed.get(cacheKey);
    if (done) return done;
    const status = statusName(info.status.name);
    const exact = opts.client.workflow.getHandle(workflowId, info.runId);
    const [history, state] = await Promise.all([
      exact.fetchHistory(),
      withTimeout(exact.query<InstanceState>(STATE_QUERY), queryTimeout).catch((err: Error) => ({ error: err.message })),
    ]);
    const events = history.events ?? [];
    const [input, output] = [startInput(events), resultOf(events)];
    await decodeReadPayloads(events, values);
    const valueHref = (which: string) => `/api/runs/${encodeURIComponent(workflowId)}/${which}?runId=${encodeURIComponent(info.runId)}`;
    const data = {
      input: input ? { ...(await valueInfo(input)), href: valueHref('input') } : null,
      output: output ? { ...(await valueInfo(output)), href: valueHref('output') } : null,
    };
    const facts = historyFacts(events);
    const sa = info.searchAttributes as Record<string, unknown[] | undefined>;
    let def = pinnedDefinition(events) as Definition | undefined;
    if (!def && sa.SwDefinitionId?.[0]) {
      const id = String(sa.SwDefinitionId[0]);
      const v = sa.SwDefinitionVersion?.[0];
      def = await opts.registry.resolve(v ? `${id}@${v}` : id).then((e) => e.def).catch(() => undefined);
    }
    if (!def) throw new HttpError(422, `run "${workflowId}" has no definition this page can read (not a swflow run, or its payloads are encrypted and its definition is not among the worker's)`);
    const graph = await laidOut(def);
    const queried = 'error' in state ? undefined : state;
    const overlay: RunOverlay = overlayOf(graph, { status, steps: queried?.steps, stepsTotal: queried?.stepsTotal, callsInFlight: queried?.callsInFlight, history: facts, now: Date.now() });
    const body = {
      workflowId,
      runId: info.runId,
      type: info.type,
      status,
      // What the run itself says (`suspended` while Temporal says Running): which actions apply.
      instanceStatus: queried?.status ?? null,
      startTime: info.startTime.toISOString(),
      closeTime: info.closeTime?.toISOString() ?? null,
      webUi: webUiLink(workflowId, info.runId) ?? null,
      ...('error' in state ? { queryError: state.error } : {}),
      graph,
      overlay,
      commands: facts.commands,
      data,
    };
    // Kept once the query answered (or cannot: a closed run replays the same every time).
    if (status !== 'Running' && queried) {
      closed.set(cacheKey, body);
      if (closed.size > CLOSED_KEPT) closed.delete(closed.keys().next().value!);
    }
    return body;
  }

  /** Size, stored or not, and a preview of a run's input or output payload (as the history holds it). */
  async function valueInfo(p: Payload): Promise<Omit<ValueInfo, 'href'> | { error: string }> {
    const key = isReferencePayload(p as CommonPayload) ? decodeReferencePayload(p as CommonPayload).claimData.key : undefined;
    const known = key && storedInfos.get(key);
    if (known) return known;
    let text: string;
    try {
      text = jsonText((await values.read([p as CommonPayload]))[0].payload);
    } catch (err) {
      return { error: `cannot read it: ${(err as Error).message}` };
    }
    const out = { size: Buffer.byteLength(text), stored: key !== undefined, preview: text.slice(0, PREVIEW_CHARS), truncated: text.length > PREVIEW_CHARS };
    if (key) {
      storedInfos.set(key, out);
      if (storedInfos.size > CLOSED_KEPT) storedInfos.delete(storedInfos.keys().next().value!);
    }
    return out;
  }

  /** GET /api/runs/<id>/input|output: the whole value, as JSON (a file with ?download=1). */
  async function value(res: ServerResponse, workflowId: string, which: 'input' | 'output', runId: string | undefined, download: boolean) {
    let events: temporal.api.history.v1.IHistoryEvent[];
    try {
      events = (await opts.client.workflow.getHandle(workflowId, runId).fetchHistory()).events ?? [];
    } catch (err) {
      // fetchHistory reports a missing run as gRPC NOT_FOUND (5), describe() as WorkflowNotFoundError.
      if ((err as Error).name === 'WorkflowNotFoundError' || (err as { code?: number }).code === 5) throw new HttpError(404, `no run with workflow id "${workflowId}"${runId ? ` and run id "${runId}"` : ''} in namespace ${ns}`);
      throw err;
    }
    const p = which === 'input' ? startInput(events) : resultOf(events);
    if (!p) throw new HttpError(404, which === 'input' ? `run "${workflowId}" has no input` : `run "${workflowId}" has no output (it has not completed)`);
    const text = jsonText((await values.read([p as CommonPayload]))[0].payload);
    res.writeHead(200, {
      'content-type': 'application/json; charset=utf-8',
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
      ...(download ? { 'content-disposition': `attachment; filename="${workflowId.replace(/[^\w.-]+/g, '_')}-${which}.json"` } : {}),
    });
    res.end(text);
  }

  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://page');
    const path = url.pathname;
    const action = ACTION_PATH.exec(path);
    if (action) {
      const answer = await act(req, decodeURIComponent(action[1]), action[2] as RunAction);
      return json(res, answer.body, answer.status);
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') throw new HttpError(405, 'only GET', { allow: 'GET, HEAD' });
    if (path === '/app.js') return send(res, 200, 'text/javascript; charset=utf-8', PAGE_JS);
    if (path === '/app.css') return send(res, 200, 'text/css; charset=utf-8', PAGE_CSS);
    if (path === '/healthz') return send(res, 200, 'text/plain', 'ok');
    if (path === '/api/config') return json(res, { namespace: ns, webUi: opts.webUiUrl ?? null, statuses: STATUSES, actions: Boolean(opts.operatorToken) });
    if (path === '/api/definitions') return json(res, await definitions());
    let m = /^\/api\/definitions\/([^/]+)\/graph$/.exec(path);
    if (m) {
      const key = decodeURIComponent(m[1]);
      const entry = await opts.registry.resolve(key).catch((err: Error) => {
        throw new HttpError(404, err.message);
      });
      return json(res, await laidOut(entry.def));
    }
    if (path === '/api/runs') return json(res, await runs(url.searchParams.get('definition'), url.searchParams.get('status')));
    m = /^\/api\/runs\/([^/]+)\/(input|output)$/.exec(path);
    if (m) return value(res, decodeURIComponent(m[1]), m[2] as 'input' | 'output', url.searchParams.get('runId') ?? undefined, url.searchParams.get('download') === '1');
    m = /^\/api\/runs\/([^/]+)$/.exec(path);
    if (m) return json(res, await run(decodeURIComponent(m[1]), url.searchParams.get('runId') ?? undefined));
    if (path === '/' || path.startsWith('/runs/') || path.startsWith('/definitions/')) return send(res, 200, 'text/html; charset=utf-8', PAGE_HTML);
    throw new HttpError(404, `nothing at ${path}`);
  }

  const server = createServer((req, res) => {
    route(req, res).catch((err: Error) => {
      const status = err instanceof HttpError ? err.status : 502;
      if (!res.headersSent) json(res, { error: err.message }, status, err instanceof HttpError ? err.headers : {});
      else res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', () => resolve());
  });
  const addr = server.address() as AddressInfo;
  const host = addr.address.includes(':') ? `[${addr.address}]` : addr.address;
  return {
    url: `http://${host}:${addr.port}`,
    server,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

function send(res: ServerResponse, status: number, type: string, body: string, headers: Record<string, string> = {}): void {
  // Not framed by a page elsewhere (whose clicks would then land on the actions' buttons).
  res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store', 'x-content-type-options': 'nosniff', 'x-frame-options': 'DENY', ...headers });
  res.end(body);
}

function json(res: ServerResponse, body: unknown, status = 200, headers: Record<string, string> = {}): void {
  send(res, status, 'application/json; charset=utf-8', JSON.stringify(body), headers);
}

type Payload = temporal.api.common.v1.IPayload;

/** The run's input: the first argument of its start (the second is its StartOptions). */
function startInput(events: temporal.api.history.v1.IHistoryEvent[]): Payload | undefined {
  return events[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0] ?? undefined;
}

/** The run's output, once it completed. */
function resultOf(events: temporal.api.history.v1.IHistoryEvent[]): Payload | undefined {
  return events.at(-1)?.workflowExecutionCompletedEventAttributes?.result?.payloads?.[0] ?? undefined;
}

/**
 * The payloads the page reads are resolved (payload store, docs/large-data.md) and decoded
 * (encrypted payloads, docs/encryption.md) in place: the start's options (the pinned
 * definition), markers (the pinned definition, local activities) and command summaries. One that
 * cannot be read stays as it is; the input and output are read apart (valueInfo).
 */
async function decodeReadPayloads(events: temporal.api.history.v1.IHistoryEvent[], values: PayloadValues): Promise<void> {
  const decode = async (ps: Payload[]): Promise<Payload[]> => {
    try {
      return (await values.read(ps as unknown as CommonPayload[])).map((r) => r.payload) as unknown as Payload[];
    } catch {
      return ps;
    }
  };
  await Promise.all(
    events.map(async (e) => {
      const input = e.workflowExecutionStartedEventAttributes?.input;
      if (input?.payloads && input.payloads.length > 1) input.payloads = [input.payloads[0], ...(await decode(input.payloads.slice(1)))];
      const details = e.markerRecordedEventAttributes?.details;
      for (const k of Object.keys(details ?? {})) {
        const p = details![k];
        if (p?.payloads?.length) p.payloads = await decode(p.payloads);
      }
      if (e.userMetadata?.summary) e.userMetadata.summary = (await decode([e.userMetadata.summary]))[0];
    }),
  );
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    p.finally(() => clearTimeout(timer)),
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`the state query got no answer within ${ms} ms (is a worker running for this task queue?)`)), ms);
    }),
  ]);
}
