/**
 * The large-data scenarios of issue 32, shared by the dev-server test (large-data.test.ts) and the
 * PostgreSQL cluster test (test/cluster/large-data.test.ts): a local service answering big and
 * small JSON, and 0.8 and 1.0 definitions that take a 20 MB input, call the service for 8 MB ten
 * times, and collect 10,000 results of 2 KB each. Their expected outputs are computed here, from
 * the same generators the service uses, so a test compares the whole value.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';

export const MB = 1_000_000;
export const BIG_CALLS = 10;
export const BIG_CALL_BYTES = 8 * MB;
/** 0.8 foreach: 10,000 results of 2 KB. */
export const ITEMS = 10_000;
export const ITEM_BYTES = 2_000;
/**
 * 1.0 for: 100 results of 200 KB, the same 20 MB. 1.0 data threads through the iterations and
 * every expression of an iteration gets the whole data (jq runs on its JSON), so a loop that
 * appends costs the square of its length: 10,000 appends would be hours (docs/large-data.md).
 */
export const ITEMS_V1 = 100;
export const ITEM_BYTES_V1 = 200_000;

/** A deterministic string of `n` characters for `seed` (a service's answer, an input's element). */
export function filler(seed: string, n: number): string {
  const unit = `${seed}:abcdefghijklmnopqrstuvwxyz0123456789|`;
  return unit.repeat(Math.ceil(n / unit.length)).slice(0, n);
}

/** The 20 MB input: 2,000 records of 10 KB. */
export function bigInput(): { records: { id: number; text: string }[] } {
  return { records: Array.from({ length: 2_000 }, (_, id) => ({ id, text: filler(`rec${id}`, 10_000) })) };
}

export const bigAnswer = (i: number) => ({ i, blob: filler(`big${i}`, BIG_CALL_BYTES) });
export const itemAnswer = (i: number, bytes = ITEM_BYTES) => ({ i, pad: filler(`item${i}`, bytes) });

export interface LargeService {
  base: string;
  /** Calls so far: `item` counts 0.8's (2 KB), `itemV1` 1.0's (200 KB). */
  calls: { big: number; item: number; itemV1: number };
  close(): Promise<void>;
}

/** `GET /big?i=` answers ~8 MB, `GET /item?i=` ~2 KB; `/openapi.json` describes both (0.8 REST functions). */
export async function startLargeService(): Promise<LargeService> {
  const calls = { big: 0, item: 0, itemV1: 0 };
  let base = '';
  const openapi = () => ({
    openapi: '3.0.3',
    info: { title: 'large', version: '1' },
    servers: [{ url: base }],
    paths: {
      '/big': { get: { operationId: 'big', parameters: [{ name: 'i', in: 'query', required: true, schema: { type: 'integer' } }], responses: { '200': { description: 'ok' } } } },
      '/item': { get: { operationId: 'item', parameters: [{ name: 'i', in: 'query', required: true, schema: { type: 'integer' } }, { name: 'bytes', in: 'query', required: false, schema: { type: 'integer' } }], responses: { '200': { description: 'ok' } } } },
    },
  });
  const server = createServer((req, res) => {
    const url = new URL(req.url!, base);
    const i = Number(url.searchParams.get('i'));
    res.writeHead(200, { 'content-type': 'application/json' });
    if (url.pathname === '/openapi.json') return res.end(JSON.stringify(openapi()));
    if (url.pathname === '/big') return calls.big++, res.end(JSON.stringify(bigAnswer(i)));
    if (url.pathname === '/item') {
      const bytes = Number(url.searchParams.get('bytes') ?? ITEM_BYTES);
      bytes === ITEM_BYTES ? calls.item++ : calls.itemV1++;
      return res.end(JSON.stringify(itemAnswer(i, bytes)));
    }
    res.writeHead(404).end();
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { base, calls, close: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))) };
}

/** Writes the six definitions into `dir`, calling `base`: 0.8 ids `<name>-08`, 1.0 `large/<name>-10`. */
export function writeDefinitions(dir: string, base: string): void {
  const write = (name: string, doc: unknown) => writeFileSync(join(dir, name), JSON.stringify(doc, null, 1));
  const fns = [
    { name: 'big', operation: `${base}/openapi.json#big` },
    { name: 'item', operation: `${base}/openapi.json#item` },
  ];
  // 0.8 --------------------------------------------------------------------------------------
  write('big-input-08.sw.json', {
    id: 'big-input-08', specVersion: '0.8', start: 'Count',
    states: [{ name: 'Count', type: 'inject', data: {}, stateDataFilter: { output: '${ {count: (.records | length), last: .records[-1].id, records: .records} }' }, end: true }],
  });
  write('big-calls-08.sw.json', {
    id: 'big-calls-08', specVersion: '0.8', start: 'Calls', functions: fns,
    states: [{
      name: 'Calls', type: 'operation', actionMode: 'sequential',
      actions: Array.from({ length: BIG_CALLS }, (_, i) => ({
        name: `big${i}`,
        functionRef: { refName: 'big', arguments: { i } },
        actionDataFilter: i === BIG_CALLS - 1 ? { toStateData: '${ .last }' } : { results: '${ {i: .i, size: (.blob | length)} }', toStateData: `\${ .c${i} }` },
      })),
      stateDataFilter: { output: `\${ {sizes: ([${Array.from({ length: BIG_CALLS - 1 }, (_, i) => `.c${i}.size`).join(', ')}] + [(.last.blob | length)]), last: .last} }` },
      end: true,
    }],
  });
  write('collect-08.sw.json', {
    id: 'collect-08', specVersion: '0.8', start: 'Items', functions: fns,
    states: [
      { name: 'Items', type: 'inject', data: {}, stateDataFilter: { output: '${ {items: [range(.n)]} }' }, transition: 'Each' },
      {
        name: 'Each', type: 'foreach', inputCollection: '${ .items }', iterationParam: 'i', outputCollection: '${ .results }', mode: 'parallel', batchSize: 50,
        actions: [{ functionRef: { refName: 'item', arguments: { i: '${ $i }' } } }],
        stateDataFilter: { output: '${ {count: (.results | length), results: .results} }' },
        end: true,
      },
    ],
  });
  // 1.0 --------------------------------------------------------------------------------------
  const doc = (name: string) => ({ dsl: '1.0.0', namespace: 'large', name, version: '1.0.0' });
  write('big-input-10.sw.json', {
    document: doc('big-input-10'),
    do: [{ count: { set: { count: '${ .records | length }', last: '${ .records[-1].id }', records: '${ .records }' } } }],
  });
  write('big-calls-10.sw.json', {
    document: doc('big-calls-10'),
    do: [
      ...Array.from({ length: BIG_CALLS }, (_, i) => ({
        [`big${i}`]: {
          call: 'http', with: { method: 'get', endpoint: `${base}/big?i=${i}` },
          ...(i === BIG_CALLS - 1 ? {} : { output: { as: '${ {i: .i, size: (.blob | length)} }' }, export: { as: '${ ($context // {}) + {sizes: (($context.sizes // []) + [.size])} }' } }),
        },
      })),
      { result: { set: { sizes: '${ $context.sizes + [(.blob | length)] }', last: '${ . }' } } },
    ],
  });
  write('collect-10.sw.json', {
    document: doc('collect-10'),
    do: [
      { each: { for: { each: 'i', in: '${ [range(.n)] }' }, do: [{ get: { call: 'http', with: { method: 'get', endpoint: `\${ "${base}/item?bytes=${ITEM_BYTES_V1}&i=" + ($i | tostring) }` }, output: { as: '${ $input + {results: (($input.results // []) + [.])} }' } } }] } },
      { result: { set: { count: '${ .results | length }', results: '${ .results }' } } },
    ],
  });
}

/** The id to start a scenario by: `big-input`, `big-calls`, `collect` in `08` or `10`. */
export const scenarioId = (name: string, dsl: string): string => (dsl === '10' ? `large/${name}-10` : `${name}-08`);

export const expected = {
  bigInput: () => {
    const input = bigInput();
    return { count: input.records.length, last: input.records.length - 1, records: input.records };
  },
  bigCalls: () => ({ sizes: Array.from({ length: BIG_CALLS }, () => BIG_CALL_BYTES), last: bigAnswer(BIG_CALLS - 1) }),
  collect: (dsl: string) => {
    const [n, bytes] = dsl === '10' ? [ITEMS_V1, ITEM_BYTES_V1] : [ITEMS, ITEM_BYTES];
    return { count: n, results: Array.from({ length: n }, (_, i) => itemAnswer(i, bytes)) };
  },
  /** The collect scenario's input. */
  collectInput: (dsl: string) => ({ n: dsl === '10' ? ITEMS_V1 : ITEMS }),
};

/**
 * The largest payload in the raw histories (no data converter: what the server stores) of every
 * run of these workflow ids, continued runs included, and how many payloads there were.
 */
export async function largestStoredPayload(connection: Connection, namespace: string, workflowIds: string[]): Promise<{ largest: number; payloads: number; runs: number; where: string }> {
  let largest = 0;
  let payloads = 0;
  let runs = 0;
  let where = '';
  for (const workflowId of workflowIds) {
    const listed = await connection.workflowService.listWorkflowExecutions({ namespace, query: `WorkflowId = '${workflowId}'`, pageSize: 1000 });
    for (const e of listed.executions ?? []) {
      runs++;
      let token: Uint8Array | undefined;
      do {
        const page = await connection.workflowService.getWorkflowExecutionHistory({ namespace, execution: e.execution!, nextPageToken: token, maximumPageSize: 50 });
        for (const ev of page.history?.events ?? []) {
          const visit = (v: unknown): void => {
            if (!v || typeof v !== 'object') return;
            if (v instanceof Uint8Array) return;
            if (Array.isArray(v)) {
              v.forEach(visit);
              return;
            }
            const o = v as { metadata?: Record<string, Uint8Array>; data?: Uint8Array };
            if (o.metadata && typeof o.metadata === 'object' && 'encoding' in o.metadata) {
              const size = temporal.api.common.v1.Payload.encode(o as temporal.api.common.v1.IPayload).finish().length;
              payloads++;
              if (size > largest) (largest = size), (where = `${workflowId} event ${ev.eventId} ${ev.eventType}`);
              return;
            }
            for (const x of Object.values(o)) visit(x);
          };
          visit(ev);
        }
        token = page.nextPageToken?.length ? page.nextPageToken : undefined;
      } while (token);
    }
  }
  return { largest, payloads, runs, where };
}
