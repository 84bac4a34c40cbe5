/**
 * The interpreter worker's workflow bundle: built in a child process by default (webpack's memory
 * stays out of the worker, src/worker/bundle-apart.ts) into a file the Worker is given by path
 * (it keeps no copy of the text), its inline source map without the sources' texts (and
 * without positions when the sandbox captures no stacks, the default), its text Latin-1 (one
 * byte per character in V8) with the same meaning. On a real
 * dev server: a worker created without a bundle runs a definition, bundled apart or from the
 * bundle cache (src/worker/bundle-cache.ts).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { bundleInterpreterApart } from '../../src/worker/bundle-apart';
import { cachedBundlePath } from '../../src/worker/bundle-cache';
import { bundleInterpreter, createInterpreterWorker, latin1Only, withoutMappings, withoutSourcesContent } from '../../src/worker/interpreter-worker';
import { startDevEnv } from '../helpers/temporal';

const MAP_URL = '//# sourceMappingURL=data:application/json;charset=utf-8;base64,';
const mapOf = (code: string) => {
  const at = code.lastIndexOf(MAP_URL);
  assert.ok(at > 0, 'an inline source map');
  return JSON.parse(Buffer.from(code.slice(at + MAP_URL.length), 'base64').toString('utf8'));
};

let env: TestWorkflowEnvironment;
before(async () => {
  env = await startDevEnv();
});
after(async () => {
  await env?.teardown();
});

test('withoutSourcesContent drops the texts and keeps the positions; code without a map is left alone', () => {
  const map = { version: 3, file: 'b.js', sources: ['a.ts'], names: [], mappings: 'AAAA', sourcesContent: ['const a = 1;'] };
  const code = `var a = 1;\n${MAP_URL}${Buffer.from(JSON.stringify(map)).toString('base64')}`;
  const out = withoutSourcesContent(code);
  assert.ok(out.startsWith('var a = 1;\n//# sourceMappingURL=data:'));
  assert.deepEqual(mapOf(out), { version: 3, file: 'b.js', sources: ['a.ts'], names: [], mappings: 'AAAA' });
  assert.equal(withoutSourcesContent('var a = 1;'), 'var a = 1;');
});

test('withoutMappings leaves an empty map that keeps its file', () => {
  const map = { version: 3, file: 'b.js', sources: ['a.ts'], names: ['a'], mappings: 'AAAA', sourcesContent: ['const a = 1;'], sourceRoot: '' };
  const out = withoutMappings(`var a = 1;\n${MAP_URL}${Buffer.from(JSON.stringify(map)).toString('base64')}`);
  assert.deepEqual(mapOf(out), { version: 3, file: 'b.js', sources: [], names: [], mappings: '' });
  assert.equal(withoutMappings('var a = 1;'), 'var a = 1;');
});

test('a bundle with stack traces keeps the positions of its map, not the texts', { timeout: 180_000 }, async () => {
  const map = mapOf((await bundleInterpreter({ stackTraces: true })).code);
  assert.ok(map.sources.some((s: string) => s.includes('src/workflow/index.ts')), 'the map names the sources');
  assert.ok(map.mappings.length > 1000);
  assert.equal(map.sourcesContent, undefined);
});

test('latin1Only escapes the characters above U+00FF: comments, strings, templates and patterns keep their meaning', () => {
  const code = "// a → b\nconst s = 'x → y', t = `${s} — …`, r = /→/, n = 'é';\nmodule.exports = { s, t, hit: r.test('→'), n };";
  const out = latin1Only(code);
  assert.equal(Buffer.from(out, 'latin1').toString('latin1'), out, 'Latin-1 only');
  assert.match(out, /'é'/, 'Latin-1 characters are left as they are');
  const run = (text: string) => {
    const module = { exports: {} as Record<string, unknown> };
    new Function('module', text)(module);
    return module.exports;
  };
  assert.deepEqual(run(out), run(code));
  assert.deepEqual(run(out), { s: 'x → y', t: 'x → y — …', hit: true, n: 'é' });
  assert.equal(latin1Only('var a = "ü";'), 'var a = "ü";');
});

test('a worker created without a bundle bundles in a child process, keeps only the file\'s path, and runs a definition', { timeout: 180_000 }, async () => {
  // Not the cached bundle (test/worker/bundle-cache.test.ts): a child process bundles.
  process.env.SWFLOW_BUNDLE_CACHE = 'off';
  try {
    await childBundles();
  } finally {
    delete process.env.SWFLOW_BUNDLE_CACHE;
  }
});

test('a worker created without a bundle, with the bundle cache on: given the cached file, which stays, and runs a definition', { timeout: 180_000 }, async () => {
  await bundleInterpreter({ tracing: false }); // made or found: the cache holds the plain bundle
  const cached = cachedBundlePath({ tracing: false, stackTraces: false });
  assert.ok(cached);
  const dir = mkdtempSync(join(tmpdir(), 'swflow-bundle-cached-'));
  const file = join(dir, 'bundle-cached.sw.json');
  writeFileSync(file, JSON.stringify({ id: 'bundle-cached', version: '1.0', specVersion: '0.8', start: 'S', states: [{ name: 'S', type: 'inject', data: { cached: true }, end: true }] }));
  const taskQueue = `bundle-cached-${Date.now()}`;
  const worker = await createInterpreterWorker({ connection: env.nativeConnection, taskQueue, definitions: [file] });
  assert.equal((worker.options.workflowBundle as { codePath?: string }).codePath, cached);
  assert.ok(existsSync(cached), 'the cached file stays');
  const out = await worker.runUntil(env.client.workflow.execute('bundle-cached', { taskQueue, workflowId: taskQueue, args: [{}] }));
  assert.deepEqual(out, { cached: true });
});

async function childBundles(): Promise<void> {
  const bundle = await bundleInterpreterApart();
  const map = mapOf(readFileSync(bundle.codePath, 'utf8'));
  assert.deepEqual({ ...map, file: undefined }, { version: 3, file: undefined, sources: [], names: [], mappings: '' }, 'no stacks captured (the default): no positions kept');
  assert.match(map.file, /\.js$/);
  assert.doesNotMatch(readFileSync(bundle.codePath, 'utf8'), /[\u0100-\uffff]/, 'Latin-1 only: one byte per character in V8');
  bundle.remove();
  assert.equal(existsSync(bundle.codePath), false, 'remove() deletes the file');

  const dir = mkdtempSync(join(tmpdir(), 'swflow-bundle-apart-'));
  const file = join(dir, 'bundle-apart.sw.json');
  writeFileSync(file, JSON.stringify({ id: 'bundle-apart', version: '1.0', specVersion: '0.8', start: 'S', states: [{ name: 'S', type: 'inject', data: { ok: true }, end: true }] }));
  const taskQueue = `bundle-apart-${Date.now()}`;
  const worker = await createInterpreterWorker({ connection: env.nativeConnection, taskQueue, definitions: [file] });
  // Given by path, read while the Worker was created, then deleted: the worker holds no bundle text.
  const given = worker.options.workflowBundle as { codePath?: string; code?: string };
  assert.equal(given.code, undefined);
  assert.match(given.codePath ?? '', /workflow-bundle\.js$/);
  assert.equal(existsSync(given.codePath!), false, 'the bundle file is gone once the Worker is created');
  const out = await worker.runUntil(env.client.workflow.execute('bundle-apart', { taskQueue, workflowId: taskQueue, args: [{}] }));
  assert.deepEqual(out, { ok: true });
}
