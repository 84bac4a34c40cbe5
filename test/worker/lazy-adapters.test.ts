/**
 * The built-in adapters load on their first call (src/worker/adapter-worker.ts, LAZY_ADAPTERS):
 * the activity types the lazy stand-ins register are exactly those of the real adapters, loading
 * the workers does not load the protocols' SDKs, and a first call does.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { LAZY_ADAPTERS, builtinAdapters } from '../../src/worker/adapter-worker';
import { httpAdapter } from '../../adapters/http';
import { ACTIVITY_OF_CALL, FUNCTION_ACTIVITY_OF_TYPE } from '../../src/common/call-kinds';

const ROOT = join(__dirname, '..', '..');

/** The SDKs a workload of HTTP calls never needs. */
const HEAVY = ['@modelcontextprotocol/sdk', '@a2a-js/sdk', 'mqtt', 'amqplib', '@asyncapi/parser', 'graphql', '@grpc/proto-loader', '@apidevtools/swagger-parser'];

/** What a fresh process running `script` has loaded when the script calls `done()`, as package names of node_modules. */
function loadedIn(script: string): string[] {
  const probe = `const done = () => {
  const names = new Set(Object.keys(require.cache).map((k) => k.match(/node_modules\\/((?:@[^/]+\\/)?[^/]+)/)?.[1]).filter(Boolean));
  process.stdout.write(JSON.stringify([...names]));
};
${script}`;
  const out = execFileSync(process.execPath, ['--import', 'tsx', '-e', probe], { cwd: ROOT, encoding: 'utf8' });
  return JSON.parse(out) as string[];
}

test('each lazy adapter registers the activity types its real adapter does', () => {
  for (const lazy of LAZY_ADAPTERS) {
    const real = lazy.load({ baseDirs: [ROOT] });
    assert.deepEqual(Object.keys(real.activityTypes).sort(), [...lazy.activityTypes].sort(), `adapters/${lazy.module}`);
  }
  const lazyTypes = builtinAdapters().flatMap((a) => Object.keys(a.activityTypes)).sort();
  const realTypes = [...LAZY_ADAPTERS.map((l) => l.load({})), httpAdapter()].flatMap((a) => Object.keys(a.activityTypes)).sort();
  assert.deepEqual(lazyTypes, realTypes);
  assert.equal(new Set(lazyTypes).size, lazyTypes.length);
});

test('the built-in adapters register every activity the interpreter schedules for a 1.0 call kind or a 0.8 function type', () => {
  const registered = new Set(builtinAdapters().flatMap((a) => Object.keys(a.activityTypes)));
  const scheduled = [...Object.values(ACTIVITY_OF_CALL), ...Object.values(FUNCTION_ACTIVITY_OF_TYPE)];
  assert.deepEqual(scheduled.filter((type) => !registered.has(type)), []);
});

test('loading the interpreter and adapter workers loads none of the protocol SDKs', () => {
  const loaded = loadedIn(`require('./src/worker/interpreter-worker'); require('./src/worker/adapter-worker'); done();`);
  assert.ok(loaded.includes('@temporalio/worker'), 'the probe sees the packages it loads');
  assert.deepEqual(HEAVY.filter((p) => loaded.includes(p)), []);
});

test('the first call of a lazy activity loads its adapter and runs it', () => {
  // An MCP call without a server: the real adapter refuses it as a configuration problem.
  const loaded = loadedIn(`
const { builtinAdapters } = require('./src/worker/adapter-worker');
const mcp = builtinAdapters().find((a) => a.activityTypes['sw.mcp']);
Promise.resolve().then(() => mcp.activityTypes['sw.mcp']({}, { state: 'ask' })).then(
  () => process.exit(1),
  (e) => { if (!/ask: call: mcp: method null is not one of/.test(e.message)) { console.error('unexpected: ' + e.message); process.exit(1); } done(); });`);
  assert.ok(loaded.includes('@modelcontextprotocol/sdk'), 'the MCP SDK loaded on the call');
  assert.ok(!loaded.includes('@a2a-js/sdk'), 'the other adapters stay unloaded');
});
