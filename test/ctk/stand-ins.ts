/**
 * Local stand-ins for the public services the conformance kit calls: petstore.swagger.io (the
 * Swagger 2.0 Petstore: its document and the pet operations the scenarios use) and httpbin.org
 * (`/basic-auth/{user}/{password}`). The kit's definitions are rewritten to call them by
 * replacing only the scheme and host (`https://petstore.swagger.io` → `http://127.0.0.1:<port>`).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

const PETS = [
  { id: 1, name: 'doggie', status: 'available', category: { id: 1, name: 'dog' }, photoUrls: [], tags: [] },
  { id: 2, name: 'milou', status: 'available', category: { id: 1, name: 'dog' }, photoUrls: [], tags: [] },
  { id: 3, name: 'garfield', status: 'sold', category: { id: 2, name: 'cat' }, photoUrls: [], tags: [] },
];

/** The parts of the Petstore's Swagger 2.0 document the kit's OpenAPI scenarios use. */
function swagger(host: string): unknown {
  const pet = { $ref: '#/definitions/Pet' };
  return {
    swagger: '2.0',
    info: { title: 'Swagger Petstore (local stand-in)', version: '1.0.7' },
    host,
    basePath: '/v2',
    schemes: ['http'],
    paths: {
      '/pet/findByStatus': {
        get: {
          operationId: 'findPetsByStatus',
          produces: ['application/json'],
          parameters: [{ name: 'status', in: 'query', required: true, type: 'array', items: { type: 'string' } }],
          responses: { '200': { description: 'ok', schema: { type: 'array', items: pet } } },
        },
      },
      '/pet/{petId}': {
        get: {
          operationId: 'getPetById',
          produces: ['application/json'],
          parameters: [{ name: 'petId', in: 'path', required: true, type: 'integer', format: 'int64' }],
          responses: { '200': { description: 'ok', schema: pet }, '404': { description: 'Pet not found' } },
        },
      },
    },
    definitions: { Pet: { type: 'object', properties: { id: { type: 'integer' }, name: { type: 'string' }, status: { type: 'string' } } } },
  };
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

function petstore(req: IncomingMessage, res: ServerResponse, host: string): void {
  const url = new URL(req.url ?? '/', `http://${host}`);
  if (url.pathname === '/v2/swagger.json') {
    json(res, 200, swagger(host));
    return;
  }
  if (url.pathname === '/v2/pet/findByStatus') {
    const wanted = url.searchParams.getAll('status').flatMap((s) => s.split(','));
    json(res, 200, PETS.filter((p) => wanted.includes(p.status)));
    return;
  }
  const m = /^\/v2\/pet\/(.+)$/.exec(url.pathname);
  if (m && req.method === 'GET') {
    const pet = /^\d+$/.test(m[1]) ? PETS.find((p) => p.id === Number(m[1])) : undefined;
    if (pet) json(res, 200, pet);
    else json(res, 404, { code: 1, type: 'error', message: 'Pet not found' });
    return;
  }
  json(res, 404, { code: 404, type: 'unknown', message: 'no such operation' });
}

function httpbin(req: IncomingMessage, res: ServerResponse): void {
  const m = /^\/basic-auth\/([^/]+)\/([^/]+)$/.exec(new URL(req.url ?? '/', 'http://x').pathname);
  if (!m) {
    json(res, 404, { error: 'not found' });
    return;
  }
  const expected = `Basic ${Buffer.from(`${decodeURIComponent(m[1])}:${decodeURIComponent(m[2])}`).toString('base64')}`;
  if (req.headers.authorization !== expected) {
    res.writeHead(401, { 'www-authenticate': 'Basic realm="Fake Realm"' });
    res.end();
    return;
  }
  json(res, 200, { authenticated: true, user: decodeURIComponent(m[1]) });
}

export interface StandIns {
  /** Rewrites the public hosts of a definition to the stand-ins. */
  rewrite(text: string): string;
  close(): Promise<void>;
  requests: string[];
}

async function listen(handler: (req: IncomingMessage, res: ServerResponse, host: string) => void, requests: string[]): Promise<{ server: Server; base: string }> {
  let host = '';
  const server = createServer((req, res) => {
    requests.push(`${req.method} ${host}${req.url}`);
    handler(req, res, host);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { server, base: `http://${host}` };
}

export async function startStandIns(): Promise<StandIns> {
  const requests: string[] = [];
  const pets = await listen(petstore, requests);
  const bin = await listen((req, res) => httpbin(req, res), requests);
  return {
    requests,
    rewrite: (text) => text.split('https://petstore.swagger.io').join(pets.base).split('https://httpbin.org').join(bin.base),
    close: async () => {
      await Promise.all([pets.server, bin.server].map((s) => new Promise<void>((r) => s.close(() => r()))));
    },
  };
}
