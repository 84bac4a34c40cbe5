/**
 * The user's service of the redrive tests: counts every call by path and run, and can be "down"
 * for some paths (503) or for one item of a loop, as a service that was out for an hour is.
 * `/openapi.json` describes its operations for 0.8 REST functions.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RedriveService {
  base: string;
  /** Calls by `<path>|<run>` (`/item` also by `|<i>`), the failed ones included. */
  calls: Map<string, number>;
  /** Paths answering 503 (and `item:<i>` for one item). */
  down: Set<string>;
  count(path: string, run: string, i?: number): number;
  close(): Promise<void>;
}

export async function startRedriveService(): Promise<RedriveService> {
  let base = '';
  const calls = new Map<string, number>();
  const down = new Set<string>();
  const op = (method: 'get' | 'post', id: string) => ({ [method]: { operationId: id, parameters: [{ name: 'run', in: 'query', required: true, schema: { type: 'string' } }], responses: { '200': { description: 'ok' } } } });
  const openapi = () => ({
    openapi: '3.0.3',
    info: { title: 'redrive', version: '1' },
    servers: [{ url: base }],
    paths: { '/a': op('get', 'a'), '/b': op('post', 'b'), '/c': op('get', 'c'), '/cwrong': op('get', 'cwrong'), '/undo': op('get', 'undo') },
  });
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const url = new URL(req.url!, base);
      if (url.pathname === '/openapi.json') return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(openapi()));
      const run = url.searchParams.get('run') ?? '';
      const i = url.searchParams.get('i');
      const key = `${url.pathname}|${run}${i ? `|${i}` : ''}`;
      calls.set(key, (calls.get(key) ?? 0) + 1);
      const answer = () => {
        if (url.pathname === '/cwrong') return void res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"no such path"}');
        if (down.has(url.pathname) || (i && down.has(`item:${i}`))) return void res.writeHead(503, { 'content-type': 'application/json' }).end('{"error":"down"}');
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ [url.pathname.slice(1)]: `${url.pathname}-ok${i ? `-${i}` : ''}` }));
      };
      // A failing fork branch fails after its sibling succeeded.
      if (url.pathname === '/fb' && down.has('/fb')) setTimeout(answer, 300);
      else answer();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    base,
    calls,
    down,
    count: (path, run, i) => calls.get(`${path}|${run}${i !== undefined ? `|${i}` : ''}`) ?? 0,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/** The definitions of the tests, for a service at `base`. */
export function redriveDefinitions(base: string): Record<string, unknown> {
  const fns = (c = 'c') => [
    { name: 'getA', operation: `${base}/openapi.json#a` },
    { name: 'postB', operation: `${base}/openapi.json#b` },
    { name: 'getC', operation: `${base}/openapi.json#${c}` },
  ];
  const states = (aNote = 'a') => [
    { name: 'A', type: 'operation', actions: [{ functionRef: { refName: 'getA', arguments: { run: '${ .run }' } }, actionDataFilter: { toStateData: `\${ .${aNote} }` } }], transition: 'B' },
    { name: 'B', type: 'operation', actions: [{ functionRef: { refName: 'postB', arguments: { run: '${ .run }' } }, actionDataFilter: { toStateData: '${ .b }' } }], transition: 'C' },
    { name: 'C', type: 'operation', actions: [{ functionRef: { refName: 'getC', arguments: { run: '${ .run }' } }, actionDataFilter: { toStateData: '${ .c }' } }], end: true },
  ];
  const seq = (id: string, version: string, c = 'c', aNote = 'a') => ({ id, version, specVersion: '0.8', name: id, start: 'A', functions: fns(c), states: states(aNote) });
  const call = (path: string, method = 'get') => ({ call: 'http', with: { method, endpoint: `\${ "${base}${path}?run=" + $workflow.input.run }` } });
  return {
    'seq.sw.json': seq('redrive-seq', '1'),
    'bulk.sw.json': seq('redrive-bulk', '1'),
    'fix-1.sw.json': seq('redrive-fix', '1', 'cwrong'),
    'fix-2.sw.json': seq('redrive-fix', '2', 'c'),
    'fix-3.sw.json': seq('redrive-fix', '3', 'c', 'A'),
    'child.sw.json': seq('redrive-child', '1'),
    'parent.sw.json': {
      id: 'redrive-parent',
      version: '1',
      specVersion: '0.8',
      start: 'P',
      functions: fns(),
      states: [
        { name: 'P', type: 'operation', actions: [{ functionRef: { refName: 'getA', arguments: { run: '${ .run }' } }, actionDataFilter: { toStateData: '${ .p }' } }], transition: 'Sub' },
        { name: 'Sub', type: 'operation', actions: [{ subFlowRef: 'redrive-child', actionDataFilter: { toStateData: '${ .child }' } }], end: true },
      ],
    },
    'comp.sw.json': {
      id: 'redrive-comp',
      version: '1',
      specVersion: '0.8',
      start: 'A',
      functions: [...fns(), { name: 'undo', operation: `${base}/openapi.json#undo` }],
      states: [
        { name: 'A', type: 'operation', actions: [{ functionRef: { refName: 'getA', arguments: { run: '${ .run }' } }, actionDataFilter: { toStateData: '${ .a }' } }], compensatedBy: 'UndoA', transition: 'B' },
        { name: 'B', type: 'operation', actions: [{ functionRef: { refName: 'postB', arguments: { run: '${ .run }' } }, actionDataFilter: { toStateData: '${ .b }' } }], compensatedBy: 'UndoB', end: { compensate: true } },
        { name: 'UndoA', type: 'operation', usedForCompensation: true, actions: [{ functionRef: { refName: 'undo', arguments: { run: '${ .run }' } } }] },
        { name: 'UndoB', type: 'operation', usedForCompensation: true, actions: [{ functionRef: { refName: 'undo', arguments: { run: '${ .run }' } } }] },
      ],
    },
    'fork-listen.sw.json': {
      document: { dsl: '1.0.0', namespace: 'redrive', name: 'fork-listen', version: '1.0.0' },
      do: [{ both: { fork: { branches: [{ go: { listen: { to: { one: { with: { type: 'redrive.go' } } } } } }, { fb: call('/fb', 'post') }] } } }],
    },
    'fork.sw.json': {
      document: { dsl: '1.0.0', namespace: 'redrive', name: 'fork', version: '1.0.0' },
      do: [{ both: { fork: { branches: [{ fa: call('/fa') }, { fb: call('/fb') }] } } }],
    },
    'loop.sw.json': {
      document: { dsl: '1.0.0', namespace: 'redrive', name: 'loop', version: '1.0.0' },
      do: [
        {
          each: {
            for: { each: 'i', in: '${ [range(1; 11)] }' },
            do: [{ get: { call: 'http', with: { method: 'get', endpoint: `\${ "${base}/item?i=" + ($i | tostring) + "&run=" + $workflow.input.run }` } } }],
          },
        },
      ],
    },
  };
}
