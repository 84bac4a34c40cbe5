/**
 * 1.0 catalogs and functions by URI: the pure parts (src/dsl/v1/catalogs.ts), validation, and
 * the interpreter worker's resolver (src/worker/activities/catalogs.ts) against a real local HTTP catalog
 * with bearer-token authentication and a file catalog.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { catalogFunctionAddress, documentCalls, needsDocument, parseCatalogCall, rawAddress } from '../../src/common/catalogs';
import { v1Functions } from '../../src/dsl/v1/functions';
import type { V1Definition } from '../../src/common/model-v1';
import { addressOf, baseUrl, CatalogResolver, FunctionNotResolved } from '../../src/worker/activities/catalogs';
import { loadAnyDefinition, formatFinding } from '../../src/dsl';

test('parseCatalogCall: name:version@catalog, nothing else', () => {
  assert.deepEqual(parseCatalogCall('log:1.0.0@global'), { name: 'log', version: '1.0.0', catalog: 'global' });
  assert.deepEqual(parseCatalogCall('greeter.hello:1.0.0@default'), { name: 'greeter.hello', version: '1.0.0', catalog: 'default' });
  assert.equal(parseCatalogCall('http'), undefined);
  assert.equal(parseCatalogCall('getPet'), undefined);
  assert.equal(parseCatalogCall('https://example.com/f.yaml'), undefined);
  assert.equal(parseCatalogCall('https://github.com/myorg/functions/validateEmailAddress@v1.0.0'), undefined);
});

test('needsDocument: URIs and catalogs the document defines; @default only when use.catalogs overrides it', () => {
  assert.equal(needsDocument('https://x.example/f.yaml', undefined), true);
  assert.equal(needsDocument('file:///tmp/f.yaml', undefined), true);
  assert.equal(needsDocument('log:1.0.0@global', { global: {} }), true);
  assert.equal(needsDocument('sw.echo:1.0.0@default', { global: {} }), false);
  assert.equal(needsDocument('sw.echo:1.0.0@default', { default: {} }), true);
  assert.equal(needsDocument('http', {}), false);
  assert.equal(needsDocument('myFn', {}), false);
});

test('rawAddress: GitHub and GitLab web addresses become raw ones (dsl.md "File Structure"); others stay', () => {
  assert.equal(
    rawAddress('https://github.com/serverlessworkflow/catalog/tree/main/functions/log/1.0.0/function.yaml'),
    'https://raw.githubusercontent.com/serverlessworkflow/catalog/refs/heads/main/functions/log/1.0.0/function.yaml',
  );
  assert.equal(rawAddress('https://github.com/serverlessworkflow/catalog'), 'https://raw.githubusercontent.com/serverlessworkflow/catalog/HEAD');
  assert.equal(rawAddress('https://github.com/org/repo/blob/dev/x/f.yaml'), 'https://raw.githubusercontent.com/org/repo/refs/heads/dev/x/f.yaml');
  assert.equal(rawAddress('https://gitlab.com/group/sub/project/-/tree/main/cat'), 'https://gitlab.com/group/sub/project/-/raw/main/cat');
  assert.equal(rawAddress('https://catalog.example/root'), 'https://catalog.example/root');
});

test('catalogFunctionAddress: <root>/functions/<name>/<version>/function.yaml', () => {
  assert.equal(catalogFunctionAddress('https://catalog.example/root/', { name: 'log', version: '1.0.0' }), 'https://catalog.example/root/functions/log/1.0.0/function.yaml');
  assert.equal(catalogFunctionAddress('https://github.com/serverlessworkflow/catalog', { name: 'log', version: '1.0.0' }), 'https://raw.githubusercontent.com/serverlessworkflow/catalog/HEAD/functions/log/1.0.0/function.yaml');
  assert.equal(catalogFunctionAddress('file:///srv/cat', { name: 'a b', version: '2' }), 'file:///srv/cat/functions/a%20b/2/function.yaml');
});

test('addressOf / baseUrl: file://./ and file://../ are relative to the definition file, else to the base folder', () => {
  const base = baseUrl('/srv/flows/order.sw.yaml');
  assert.equal(base.href, 'file:///srv/flows/order.sw.yaml');
  assert.equal(addressOf('file://./catalog', base), 'file:///srv/flows/catalog');
  assert.equal(addressOf('file://../shared/catalog', base), 'file:///srv/shared/catalog');
  assert.equal(addressOf('file:///abs/catalog', base), 'file:///abs/catalog');
  assert.equal(addressOf('https://c.example/x', base), 'https://c.example/x');
  // A definition without a file (StartOptions.definition, a registry object): the base folder.
  assert.equal(addressOf('file://./catalog', baseUrl('start options', '/work/cases')), 'file:///work/cases/catalog');
  assert.equal(addressOf('file://./catalog', baseUrl(undefined, '/work/cases')), 'file:///work/cases/catalog');
});

const doc = (tasks: unknown[], use: Record<string, unknown> = {}) => ({ document: { dsl: '1.0.3', namespace: 'tests', name: 'cat', version: '0.1.0' }, use, do: tasks });

test('documentCalls: catalog and URI calls anywhere in the tree and in use.functions, each once', async () => {
  const d = doc(
    [
      { a: { call: 'log:1.0.0@global' } },
      { b: { try: [{ c: { call: 'https://f.example/x.yaml' } }], catch: { do: [{ d: { call: 'log:1.0.0@global' } }] } } },
      { e: { fork: { branches: [{ f: { call: 'http', with: { method: 'get', endpoint: 'https://x.example' } } }, { g: { call: 'wrapped' } }] } } },
      { h: { call: 'sw.echo:1.0.0@default' } },
    ],
    { catalogs: { global: { endpoint: 'https://catalog.example' } }, functions: { wrapped: { call: 'other:2.0.0@global' } } },
  );
  assert.deepEqual(documentCalls(d as never), ['log:1.0.0@global', 'https://f.example/x.yaml', 'other:2.0.0@global']);
  // A use.catalogs.default overrides swflow's default catalog (adapter activities): then @default calls are documents too.
  const overridden = { ...d, use: { ...d.use, catalogs: { global: { endpoint: 'https://catalog.example' }, default: { endpoint: 'https://mine.example' } } } };
  assert.deepEqual(documentCalls(overridden as never), ['log:1.0.0@global', 'https://f.example/x.yaml', 'sw.echo:1.0.0@default', 'other:2.0.0@global']);
  const loaded = (await loadAnyDefinition(d)).definition as V1Definition;
  // swflow test mocks them by their call string.
  const names = v1Functions(loaded).map((f) => f.name);
  for (const n of ['log:1.0.0@global', 'https://f.example/x.yaml', 'sw.echo:1.0.0@default', 'http']) assert.ok(names.includes(n), `${n} in ${names.join(', ')}`);
});

test('validation: catalogs and URI calls without warnings; unknown catalogs, expression endpoints, other schemes are errors with their location', async () => {
  const ok = await loadAnyDefinition(
    doc([{ a: { call: 'log:1.0.0@global' } }, { b: { call: 'https://f.example/x.yaml' } }], {
      secrets: ['catalogCreds'],
      catalogs: { global: { endpoint: { uri: 'https://catalog.example', authentication: { bearer: { token: '${ $secrets.catalogToken }' } } } }, local: { endpoint: { uri: 'file://./catalog', authentication: { basic: { use: 'catalogCreds' } } } } },
    }),
  );
  assert.deepEqual(ok.problems.map(formatFinding), []);
  const text = [
    'document: { dsl: "1.0.3", namespace: tests, name: bad, version: "0.1.0" }',
    'use:',
    '  catalogs:',
    '    dyn: { endpoint: { uri: "${ .where }" } }',
    '    ftp: { endpoint: "ftp://catalog.example" }',
    'do:',
    '  - a:',
    '      call: x:1.0@nope',
    '  - b:',
    '      call: ftp://f.example/x.yaml',
  ].join('\n');
  const bad = await loadAnyDefinition(text, { source: 'bad.sw.yaml' });
  const msgs = bad.problems.map(formatFinding);
  assert.ok(msgs.some((m) => /^bad\.sw\.yaml:8:13: error: unknown catalog 'nope' \(use\.catalogs defines: dyn, ftp\)/.test(m)), msgs.join('\n'));
  assert.ok(msgs.some((m) => /bad\.sw\.yaml:4:.*error: a catalog endpoint cannot be a runtime expression/.test(m)), msgs.join('\n'));
  assert.ok(msgs.some((m) => /bad\.sw\.yaml:5:.*error: cannot read a catalog at 'ftp:/.test(m)), msgs.join('\n'));
  assert.ok(msgs.some((m) => /bad\.sw\.yaml:10:.*error: cannot fetch a function from 'ftp:' addresses/.test(m)), msgs.join('\n'));
  assert.ok(!msgs.some((m) => /not supported yet/.test(m)), msgs.join('\n'));
  // $secrets stays out of anything but call arguments and a catalog's authentication.
  const leak = await loadAnyDefinition(doc([{ a: { set: { x: '${ $secrets.catalogToken }' } } }], { catalogs: { c: { endpoint: { uri: 'https://c.example', authentication: { bearer: { token: 'literal' } } } } } }));
  assert.ok(leak.problems.some((p) => p.severity === 'error' && /\$secrets may only be used/.test(p.message)));
});

// ------------------------------------------------------------------ the resolver

let server: Server;
let base = '';
let dir = '';
const requests: { url: string; authorization?: string }[] = [];
const served: Record<string, string> = {};

before(async () => {
  server = createServer((req, res) => {
    requests.push({ url: req.url!, authorization: req.headers.authorization });
    if (req.url!.startsWith('/slow/')) return void setTimeout(() => res.end('set: {}'), 2000);
    if (req.url!.startsWith('/private/') && req.headers.authorization !== 'Bearer cat-token-1') {
      res.writeHead(401, { 'www-authenticate': 'Bearer' });
      return res.end('unauthorized');
    }
    const path = req.url!.replace(/^\/(private|public)/, '');
    const body = served[path];
    if (body === undefined) {
      res.writeHead(404);
      return res.end('not found');
    }
    res.writeHead(200, { 'content-type': 'application/yaml' });
    res.end(body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  dir = mkdtempSync(join(tmpdir(), 'swflow-catalog-'));
  served['/functions/greet/1.0.0/function.yaml'] = [
    'input:',
    '  schema:',
    '    document: { type: object, required: [name], properties: { name: { type: string } } }',
    'set:',
    '  greeting: ${ "hello " + .name }',
  ].join('\n');
  served['/functions/nested/1.0.0/function.yaml'] = 'call: greet:1.0.0@remote\nwith: { name: nested }\n';
  served['/f/by-uri.yaml'] = '{ "set": { "byUri": true } }';
  served['/functions/broken/1.0.0/function.yaml'] = 'call: http\nwith: { method: get }\n';
  served['/functions/notask/1.0.0/function.yaml'] = 'hello: world\n';
  mkdirSync(join(dir, 'cat', 'functions', 'double', '2.0.0'), { recursive: true });
  writeFileSync(join(dir, 'cat', 'functions', 'double', '2.0.0', 'function.yaml'), 'set: ${ . * 2 }\n');
});

after(async () => {
  await new Promise<void>((r) => server.close(() => r()));
  rmSync(dir, { recursive: true, force: true });
});

async function definition(tasks: unknown[], use: Record<string, unknown>): Promise<V1Definition> {
  const r = await loadAnyDefinition(doc(tasks, use));
  assert.ok(r.definition, r.problems.map(formatFinding).join('\n'));
  return r.definition as V1Definition;
}

const remote = (auth = true) => ({
  remote: { endpoint: { uri: `${base}/private`, ...(auth ? { authentication: { bearer: { token: '${ $secrets.catalogToken }' } } } : {}) } },
});

test('resolver: an HTTP catalog with a bearer token from $secrets, functions calling functions, a function by URI, a file catalog (relative path)', async () => {
  const def = await definition(
    [{ a: { call: 'nested:1.0.0@remote' } }, { b: { call: `${base}/public/f/by-uri.yaml` } }, { c: { call: 'double:2.0.0@files' } }],
    { catalogs: { ...remote(), files: { endpoint: 'file://./cat' } } },
  );
  const resolver = new CatalogResolver({ secrets: { catalogToken: 'cat-token-1' } });
  const fns = await resolver.resolve(def, join(dir, 'flow.sw.yaml'));
  assert.deepEqual(Object.keys(fns).sort(), ['double:2.0.0@files', 'greet:1.0.0@remote', 'nested:1.0.0@remote', `${base}/public/f/by-uri.yaml`].sort());
  assert.deepEqual(fns['nested:1.0.0@remote'], { task: { call: 'greet:1.0.0@remote', with: { name: 'nested' } }, source: `${base}/private/functions/nested/1.0.0/function.yaml` });
  assert.equal((fns['greet:1.0.0@remote'].task.input?.schema?.document as { required: string[] } | undefined)?.required[0], 'name');
  assert.deepEqual(fns[`${base}/public/f/by-uri.yaml`].task, { set: { byUri: true } });
  assert.deepEqual(fns['double:2.0.0@files'], { task: { set: '${ . * 2 }' }, source: pathToFileURL(join(dir, 'cat', 'functions', 'double', '2.0.0', 'function.yaml')).href });
  assert.ok(requests.some((r) => r.url === '/private/functions/greet/1.0.0/function.yaml' && r.authorization === 'Bearer cat-token-1'));

  // Cached per worker: HTTP for cacheMs, files until they change.
  const before = requests.length;
  await resolver.resolve(def, join(dir, 'flow.sw.yaml'));
  assert.equal(requests.length, before);
  writeFileSync(join(dir, 'cat', 'functions', 'double', '2.0.0', 'function.yaml'), 'set: ${ . * 3 }\n');
  assert.deepEqual((await resolver.resolve(def, join(dir, 'flow.sw.yaml')))['double:2.0.0@files'].task, { set: '${ . * 3 }' });
});

test('resolver: a named use.authentications policy and a secret-based one', async () => {
  const viaUse = await definition([{ a: { call: 'greet:1.0.0@remote' } }], {
    authentications: { catalogAuth: { bearer: { token: 'cat-token-1' } } },
    catalogs: { remote: { endpoint: { uri: `${base}/private`, authentication: { use: 'catalogAuth' } } } },
  });
  assert.ok((await new CatalogResolver().resolve(viaUse))['greet:1.0.0@remote']);
  const secretBased = await definition([{ a: { call: 'greet:1.0.0@remote' } }], {
    secrets: ['catalogBearer'],
    catalogs: { remote: { endpoint: { uri: `${base}/private`, authentication: { bearer: { use: 'catalogBearer' } } } } },
  });
  assert.ok((await new CatalogResolver({ secrets: { catalogBearer: '{"token":"cat-token-1"}' } }).resolve(secretBased))['greet:1.0.0@remote']);
});

async function failure(p: Promise<unknown>): Promise<FunctionNotResolved> {
  try {
    await p;
  } catch (err) {
    assert.ok(err instanceof FunctionNotResolved, String(err));
    return err;
  }
  assert.fail('resolved');
}

test('resolver errors name the catalog, function, version and address, and say why', async () => {
  const noToken = await definition([{ a: { call: 'greet:1.0.0@remote' } }], { catalogs: remote(false) });
  let e = await failure(new CatalogResolver().resolve(noToken));
  assert.equal(e.message, `cannot pin function greet version 1.0.0 of catalog 'remote' from ${base}/private/functions/greet/1.0.0/function.yaml: GET answered 401 Unauthorized (check the catalog endpoint's authentication)`);
  assert.equal(e.permanent, true);

  const wrongToken = await definition([{ a: { call: 'greet:1.0.0@remote' } }], { catalogs: remote() });
  e = await failure(new CatalogResolver({ secrets: { catalogToken: 'wrong' } }).resolve(wrongToken));
  assert.match(e.message, /401 Unauthorized/);
  assert.doesNotMatch(e.message, /wrong/);

  e = await failure(new CatalogResolver({ secrets: {} }).resolve(wrongToken));
  assert.match(e.message, /of catalog 'remote' from .*: authentication: secret 'catalogToken' not available to this worker$/);

  const missing = await definition([{ a: { call: 'nothere:9.9.9@remote' } }], { catalogs: remote() });
  e = await failure(new CatalogResolver({ secrets: { catalogToken: 'cat-token-1' } }).resolve(missing));
  assert.match(e.message, /function nothere version 9\.9\.9 of catalog 'remote' from .*\/functions\/nothere\/9\.9\.9\/function\.yaml: GET answered 404/);

  const slow = await definition([{ a: { call: `${base}/slow/f.yaml` } }], {});
  e = await failure(new CatalogResolver({ timeoutMs: 300 }).resolve(slow));
  assert.equal(e.message, `cannot pin function ${base}/slow/f.yaml from ${base}/slow/f.yaml: no answer within 300 ms`);
  assert.equal(e.permanent, false);

  const broken = await definition([{ a: { call: 'broken:1.0.0@remote' } }, { b: { call: 'notask:1.0.0@remote' } }], { catalogs: remote() });
  e = await failure(new CatalogResolver({ secrets: { catalogToken: 'cat-token-1' } }).resolve(broken));
  assert.match(e.message, /function broken version 1\.0\.0 of catalog 'remote' .*: not a valid 1\.0 task: \/with.*endpoint/);

  const notask = await definition([{ b: { call: 'notask:1.0.0@remote' } }], { catalogs: remote() });
  e = await failure(new CatalogResolver({ secrets: { catalogToken: 'cat-token-1' } }).resolve(notask));
  assert.match(e.message, /the document is not a task/);

  const file = await definition([{ a: { call: 'gone:1.0.0@files' } }], { catalogs: { files: { endpoint: pathToFileURL(join(dir, 'cat')).href } } });
  e = await failure(new CatalogResolver().resolve(file));
  assert.match(e.message, /function gone version 1\.0\.0 of catalog 'files' from file:\/\/.*\/cat\/functions\/gone\/1\.0\.0\/function\.yaml: no such file/);
});
