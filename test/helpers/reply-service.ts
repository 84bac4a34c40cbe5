/**
 * The user's service of the encryption tests (test/codec, test/cluster): answers every call with
 * `{ "reply": "svc-<the argument reversed>" }` — a call result found nowhere else, so a search
 * for it in the server's storage finds only what the call itself stored. `GET /echo?note=` is an
 * OpenAPI operation (`/openapi.json#echo`); any POST takes `{ "note": ... }`.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export const reversed = (s: string): string => s.split('').reverse().join('');

export interface ReplyService {
  base: string;
  close(): Promise<void>;
}

export async function startReplyService(): Promise<ReplyService> {
  let base = '';
  const openapi = () => ({
    openapi: '3.0.3',
    info: { title: 'echo', version: '1' },
    servers: [{ url: base }],
    paths: { '/echo': { get: { operationId: 'echo', parameters: [{ name: 'note', in: 'query', required: true, schema: { type: 'string' } }], responses: { '200': { description: 'ok' } } } } },
  });
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const url = new URL(req.url!, base);
      res.writeHead(200, { 'content-type': 'application/json' });
      if (url.pathname === '/openapi.json') return res.end(JSON.stringify(openapi()));
      const note = url.pathname === '/echo' ? url.searchParams.get('note')! : (JSON.parse(body) as { note: string }).note;
      res.end(JSON.stringify({ reply: `svc-${reversed(note)}` }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    base,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
