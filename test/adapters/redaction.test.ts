/**
 * Redaction at the source (issue 13): a `$SECRETS` value used as a header, query or path
 * parameter, in a body, inside a jq-built value, echoed by the service in its error answer or
 * quoted in a connection error never reaches Temporal: each test searches the run's full
 * history and its describe output (also while the call is being retried). And an answer that
 * is not the JSON its content type says fails the call there, with the content type and the
 * first bytes (a text/* answer stays a string).
 *
 * The REST adapter against a real HTTP service that echoes what it receives.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createBuiltinAdapterWorker } from '../../src/worker/adapter-worker';
import { freePort } from '../helpers/ports';
import { assertNoSecrets, describeText } from '../helpers/leaks';
import { adapterHarness, failureText, type AdapterHarness } from './harness';

const SECRETS = {
  HEADER_KEY: 'hdr-s3cret-91ab',
  QUERY_KEY: 'qry s3cret/&=+72',
  PATH_KEY: 'path-s3cret-55',
  BODY_KEY: 'body-s3cret-c0de',
  JQ_KEY: 'jq-s3cret-e4e4',
};

let service: Server;
let base: string;
let closedBase: string;
let h: AdapterHarness;

function openapi(serverUrl: string) {
  const get = (operationId: string, parameters: unknown[] = []) => ({ get: { operationId, parameters } });
  return {
    openapi: '3.0.3',
    info: { title: 'echo', version: '1' },
    servers: [{ url: serverUrl }],
    paths: {
      '/probe/{p}': get('probe', [
        { name: 'p', in: 'path', required: true },
        { name: 'q', in: 'query' },
        { name: 'X-Key', in: 'header' },
      ]),
      '/store': { post: { operationId: 'store', requestBody: { content: { 'application/json': {} } } } },
      '/ok': get('okEcho', [{ name: 'q', in: 'query' }]),
      '/bad-json': get('badJson'),
      '/text': get('text'),
    },
  };
}

before(async () => {
  service = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const url = new URL(req.url!, 'http://x');
      const echo = { path: decodeURIComponent(url.pathname), query: Object.fromEntries(url.searchParams), key: req.headers['x-key'] ?? null };
      const send = (status: number, type: string, text: string) => {
        res.writeHead(status, { 'content-type': type });
        res.end(text);
      };
      if (url.pathname === '/openapi.json') return send(200, 'application/json', JSON.stringify(openapi(base)));
      if (url.pathname === '/closed.json') return send(200, 'application/json', JSON.stringify(openapi(closedBase)));
      if (url.pathname.startsWith('/probe/')) return send(400, 'application/json', JSON.stringify({ message: 'rejected', echo }));
      if (url.pathname === '/store') return send(422, 'text/plain; charset=utf-8', `cannot store ${body}`);
      if (url.pathname === '/ok') return send(200, 'application/json', JSON.stringify({ echo }));
      if (url.pathname === '/bad-json') return send(200, 'application/json', '{"ok": tru <html>oops</html>');
      if (url.pathname === '/text') return send(200, 'text/plain', 'plain words, not JSON');
      send(404, 'text/plain', 'no');
    });
  });
  await new Promise<void>((r) => service.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(service.address() as AddressInfo).port}`;
  closedBase = `http://127.0.0.1:${await freePort()}`;
  h = await adapterHarness();
  h.serve(await createBuiltinAdapterWorker({ connection: h.connection, secrets: SECRETS }));
});

after(async () => {
  await h?.close();
  await new Promise<void>((r) => service.close(() => r()));
});

const functions = () => [
  { name: 'probe', operation: `${base}/openapi.json#probe` },
  { name: 'store', operation: `${base}/openapi.json#store` },
  { name: 'okEcho', operation: `${base}/openapi.json#okEcho` },
  { name: 'badJson', operation: `${base}/openapi.json#badJson` },
  { name: 'text', operation: `${base}/openapi.json#text` },
  { name: 'closedProbe', operation: `${base}/closed.json#probe` },
];

function oneCall(id: string, refName: string, args: Record<string, unknown>, extra: Record<string, unknown> = {}, action: Record<string, unknown> = {}) {
  return {
    id,
    start: 'Call',
    secrets: Object.keys(SECRETS),
    functions: functions(),
    ...extra,
    states: [{ name: 'Call', type: 'operation', actions: [{ name: 'call', functionRef: { refName, arguments: args }, ...action }], end: true }],
  };
}

async function failsWithoutSecrets(doc: Record<string, unknown>, code: RegExp, secrets = Object.values(SECRETS)): Promise<string> {
  const { result, workflowId } = await h.run(doc);
  let failure = '';
  await assert.rejects(result, (e: unknown) => ((failure = failureText(e)), true));
  assert.match(failure, code);
  for (const s of secrets) assert.ok(!failure.includes(s), `the secret is not in the run's failure: ${failure}`);
  return assertNoSecrets(h.client, workflowId, secrets);
}

test('a secret header echoed in the error answer is redacted everywhere', async () => {
  const history = await failsWithoutSecrets(oneCall('redact-header', 'probe', { p: 'x', 'X-Key': '${ $SECRETS.HEADER_KEY }' }), /code 400/);
  assert.match(history, /answered 400 Bad Request/);
});

test('a secret query parameter (in the request URL) is redacted, also from describe while the call is retried', async () => {
  // autoRetries' default strategy (unlimited attempts) is the activity's Temporal retry policy
  // (a finite one is retried by the interpreter, one activity per attempt: src/workflow/v08/retry.ts).
  const doc = oneCall('redact-query', 'probe', { p: 'x', q: '${ $SECRETS.QUERY_KEY }' }, { autoRetries: true });
  const handle = await h.start(doc);
  // While Temporal waits to retry, describe shows the pending call with its last failure.
  let pending = '';
  for (let i = 0; i < 100 && !pending.includes('answered 400'); i++) {
    pending = await describeText(h.client, handle.workflowId);
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.match(pending, /lastFailure.*answered 400/, 'describe showed the retried call');
  await handle.terminate('retried for ever: seen enough');
  await assert.rejects(handle.result());
  // the failures stayed in the pending activity (Temporal retried it): that is where the redaction shows
  assert.match(pending, /\[redacted\]/);
  await assertNoSecrets(h.client, handle.workflowId, [SECRETS.QUERY_KEY], [pending], false);
});

test('a secret path parameter is redacted', async () => {
  await failsWithoutSecrets(oneCall('redact-path', 'probe', { p: '${ $SECRETS.PATH_KEY }' }), /code 400/);
});

test('a secret in the request body, echoed in a text error answer, is redacted', async () => {
  const history = await failsWithoutSecrets(oneCall('redact-body', 'store', { item: 'a', token: '${ $SECRETS.BODY_KEY }' }), /code 422/);
  assert.match(history, /cannot store/);
});

test('a jq-built value from a secret is redacted, and so is the secret it was built from', async () => {
  const built = `k:${SECRETS.JQ_KEY.toUpperCase()}`;
  await failsWithoutSecrets(oneCall('redact-jq', 'probe', { p: 'x', 'X-Key': '${ "k:" + ($SECRETS.JQ_KEY | ascii_upcase) }', q: '${ $SECRETS.JQ_KEY }' }), /code 400/, [SECRETS.JQ_KEY, built]);
});

test('a connection error quoting a URL with a secret is redacted', async () => {
  const history = await failsWithoutSecrets(oneCall('redact-connection', 'closedProbe', { p: '${ $SECRETS.PATH_KEY }', q: '${ $SECRETS.QUERY_KEY }' }), /code ConnectionRefused/);
  assert.match(history, /ECONNREFUSED/);
});

test("a service answer that echoes a secret is redacted from the call's result", async () => {
  const { result, workflowId } = await h.run(oneCall('redact-result', 'okEcho', { q: '${ $SECRETS.QUERY_KEY }' }));
  assert.deepEqual(await result, { echo: { path: '/ok', query: { q: '[redacted]' }, key: null } });
  await assertNoSecrets(h.client, workflowId, [SECRETS.QUERY_KEY]);
});

test('invalid JSON under a JSON content type fails the call with the content type and the first bytes', async () => {
  const { result } = await h.run({ ...oneCall('badjson', 'badJson', {}), errors: [{ name: 'Garbage', code: 'InvalidResponse' }] });
  await assert.rejects(result, (e: unknown) => {
    const text = failureText(e);
    assert.match(text, /state "Call", action "call", function "badJson" failed: GET http:\/\/127\.0\.0\.1:\d+\/bad-json answered 200 with content type application\/json but a body that is not valid JSON/);
    assert.match(text, /\{\\?"ok\\?": tru <html>oops<\/html>/);
    assert.match(text, /code InvalidResponse/);
    return true;
  });
  // onErrors can handle it by its code.
  const handled = await h.run({
    ...oneCall('badjsonhandled', 'badJson', {}),
    errors: [{ name: 'Garbage', code: 'InvalidResponse' }],
    states: [
      { name: 'Call', type: 'operation', actions: [{ functionRef: 'badJson' }], onErrors: [{ errorRef: 'Garbage', transition: 'Fallback' }], end: true },
      { name: 'Fallback', type: 'inject', data: { fallback: true }, end: true },
    ],
  });
  assert.deepEqual(await handled.result, { fallback: true });
});

test('a text/* answer stays a string', async () => {
  const { result } = await h.run({ ...oneCall('textanswer', 'text', {}), states: [{ name: 'Call', type: 'operation', actions: [{ functionRef: 'text', actionDataFilter: { toStateData: '${ .answer }' } }], end: true }] });
  assert.deepEqual(await result, { answer: 'plain words, not JSON' });
});
