/**
 * What `swflow worker`, `adapters`, `gateway` and `start` do with bad settings, as processes
 * (bin/swflow.js): they exit non-zero naming the setting before serving anything — a server that
 * does not answer at TEMPORAL_ADDRESS, malformed codec keys, a definitions folder that is missing
 * or holds no definition — and the gateway, which starts while Temporal is down by design, is not
 * ready and refuses events with 503 naming TEMPORAL_ADDRESS. test/deploy/e2e/image.test.ts runs
 * the same cases in the image.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { freePort } from '../helpers/ports';
import { waitFor } from '../helpers/wait';

const ROOT = resolve(__dirname, '..', '..');

function swflow(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [join(ROOT, 'bin', 'swflow.js'), ...args], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.once('close', (code) => (clearTimeout(timer), done({ code, out, err })));
  });
}

test('each process exits naming the setting, before serving', async () => {
  const closed = `127.0.0.1:${await freePort()}`;
  const empty = mkdtempSync(join(tmpdir(), 'swflow-empty-defs-'));
  const cases: { args: string[]; env?: NodeJS.ProcessEnv; expect: RegExp }[] = [
    { args: ['worker'], env: { TEMPORAL_ADDRESS: closed }, expect: new RegExp(`The Temporal server at TEMPORAL_ADDRESS=${closed} does not answer`) },
    { args: ['adapters'], env: { TEMPORAL_ADDRESS: closed }, expect: new RegExp(`TEMPORAL_ADDRESS=${closed} does not answer`) },
    { args: ['worker'], env: { TEMPORAL_ADDRESS: 'swflow-no-such-host.invalid:7233' }, expect: /TEMPORAL_ADDRESS=swflow-no-such-host\.invalid:7233 does not answer/ },
    { args: ['worker'], env: { TEMPORAL_ADDRESS: closed, SWFLOW_CODEC_KEYS: 'k1:c2hvcnQ=' }, expect: /SWFLOW_CODEC_KEYS: key k1 is 5 bytes/ },
    { args: ['adapters'], env: { TEMPORAL_ADDRESS: closed, SWFLOW_CODEC_KEY_FILE: '/nonexistent/keys' }, expect: /SWFLOW_CODEC_KEY_FILE=\/nonexistent\/keys cannot be read/ },
    { args: ['gateway', '--port', '0'], env: { TEMPORAL_ADDRESS: closed, SWFLOW_CODEC_KEYS: 'not-a-key' }, expect: /SWFLOW_CODEC_KEYS: entry 1/ },
    { args: ['worker', '--definitions', '/nonexistent/defs'], env: { TEMPORAL_ADDRESS: closed }, expect: /--definitions \/nonexistent\/defs: no such folder or file/ },
    { args: ['adapters', '-d', '/nonexistent/defs'], env: { TEMPORAL_ADDRESS: closed }, expect: /--definitions \/nonexistent\/defs: no such folder or file/ },
    { args: ['gateway', '-d', empty, '--port', '0'], env: { TEMPORAL_ADDRESS: closed }, expect: /--definitions .*: no workflow definition found/ },
    { args: ['worker', '-d', empty], env: { TEMPORAL_ADDRESS: closed }, expect: /--definitions .*: no workflow definition found/ },
  ];
  try {
    for (const c of cases) {
      const r = await swflow(c.args, c.env ?? {});
      const what = `${Object.entries(c.env ?? {}).map(([k, v]) => `${k}=${v}`).join(' ')} swflow ${c.args.join(' ')}`;
      assert.equal(r.code, 1, `${what} exits 1: ${r.err}`);
      assert.match(r.err, c.expect, what);
      assert.doesNotMatch(r.out + r.err, /serving task queue|listening on/, what);
    }
  } finally {
    rmSync(empty, { recursive: true, force: true });
  }
  console.log(`bad input: ${cases.length} cases (TEMPORAL_ADDRESS closed/unresolvable, codec keys, missing or empty --definitions) exit 1 naming the setting`);
});

test('the gateway with Temporal unreachable: /readyz 503 and events 503, naming TEMPORAL_ADDRESS; never 202', async () => {
  const closed = `127.0.0.1:${await freePort()}`;
  const port = await freePort();
  const child = spawn(process.execPath, [join(ROOT, 'bin', 'swflow.js'), 'gateway', '--definitions', 'examples', '--port', String(port), '--temporal-timeout', '1000'], {
    cwd: ROOT,
    env: { ...process.env, TEMPORAL_ADDRESS: closed },
    stdio: 'ignore',
  });
  try {
    const ready = await waitFor('the gateway to answer', () => fetch(`http://127.0.0.1:${port}/readyz`), 60_000);
    assert.equal(ready.status, 503);
    assert.match(((await ready.json()) as { error: string }).error, new RegExp(`TEMPORAL_ADDRESS=${closed} does not answer`));
    const res = await fetch(`http://127.0.0.1:${port}/`, {
      method: 'POST',
      headers: { 'content-type': 'application/cloudevents+json' },
      body: JSON.stringify({ specversion: '1.0', id: 'e1', type: 'greeting.requested', source: 'swflow.examples', data: { person: { name: 'A' } } }),
    });
    const body = await res.text();
    assert.equal(res.status, 503, body);
    assert.match(body, new RegExp(`TEMPORAL_ADDRESS=${closed}`));
    console.log('gateway, Temporal unreachable: /readyz 503 and a routable event 503, both naming TEMPORAL_ADDRESS');
  } finally {
    child.kill('SIGKILL');
  }
});
