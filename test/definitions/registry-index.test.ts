/**
 * The definition registry at 1,000 definitions (issue 34, item 3): a run start (`resolve`) looks
 * its index up and stats at most the one file it resolves (counted through the registry's `fs`,
 * node's real fs wrapped with counters); the folders are watched, so a file added, changed or
 * removed is seen without a restart; a broken file is reported (file:line, once per change) and
 * skipped while the others resolve, and the API and schema documents beside definitions are left
 * alone. Real files in a temporary folder.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DefinitionNotFound, DefinitionRegistry, type RegistryFs } from '../../src/definitions/registry';
import { PROJECT_ROOT } from '../../src/platform/paths';

const COUNT = 1000;
const dir = mkdtempSync(join(tmpdir(), 'swflow-registry-'));

/** A small 0.8 definition; `note` changes its size. */
const doc = (id: string, version = '1.0', note = '') => JSON.stringify({ id, version, specVersion: '0.8', start: 'a', states: [{ name: 'a', type: 'inject', data: { id, note }, end: true }] }, null, 2);
const fileOf = (i: number) => join(dir, `def-${i}.sw.json`);

/** node:fs with each call the registry makes counted. */
function countingFs(extra: Partial<RegistryFs> = {}) {
  const calls = { stat: 0, readdir: 0, watch: 0 };
  const counted: RegistryFs = {
    statSync: ((...a: Parameters<typeof fs.statSync>) => (calls.stat++, fs.statSync(...a))) as typeof fs.statSync,
    readdirSync: ((...a: Parameters<typeof fs.readdirSync>) => (calls.readdir++, fs.readdirSync(...a))) as typeof fs.readdirSync,
    watch: ((...a: Parameters<typeof fs.watch>) => (calls.watch++, fs.watch(...a))) as typeof fs.watch,
    ...extra,
  };
  return { calls, fs: counted, reset: () => Object.assign(calls, { stat: 0, readdir: 0, watch: 0 }) };
}

/** Polls `check` every 25 ms for at most `ms`: the time it took, or a failure. */
async function within(ms: number, what: string, check: () => Promise<boolean>): Promise<number> {
  const t0 = Date.now();
  while (Date.now() - t0 < ms) {
    if (await check().catch(() => false)) return Date.now() - t0;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`${what}: not within ${ms} ms`);
}

const registries: DefinitionRegistry[] = [];
function registry(opts: ConstructorParameters<typeof DefinitionRegistry>[1]): DefinitionRegistry {
  const r = new DefinitionRegistry([dir], opts);
  registries.push(r);
  return r;
}

before(() => {
  for (let i = 0; i < COUNT; i++) writeFileSync(fileOf(i), doc(`def${i}`));
});

after(() => {
  for (const r of registries) r?.close();
  rmSync(dir, { recursive: true, force: true });
});

test('1,000 definitions: a run start stats at most the file it resolves and lists no folder', { timeout: 120_000 }, async () => {
  const counter = countingFs();
  // A re-scan period longer than the test: what is counted is the run starts alone.
  const r = registry({ fs: counter.fs, rescanMs: 3_600_000 });
  counter.reset(); // the constructor's stat of the folder
  const t0 = Date.now();
  await r.watch();
  const scan = { ...counter.calls, ms: Date.now() - t0 };
  assert.equal(scan.stat, COUNT, 'the first scan stats each file once');
  counter.reset();
  const starts = 200;
  for (let k = 0; k < starts; k++) {
    const i = (k * 7919) % COUNT;
    const before = { ...counter.calls };
    const { def, source } = await r.resolve(k % 2 ? `def${i}` : `def${i}@1.0`);
    assert.equal(def.id, `def${i}`);
    assert.equal(source, fileOf(i));
    assert.ok(counter.calls.stat - before.stat <= 1, `resolve ${k}: ${counter.calls.stat - before.stat} stats`);
    assert.equal(counter.calls.readdir - before.readdir, 0, `resolve ${k} listed a folder`);
  }
  assert.equal(counter.calls.stat, starts);
  assert.equal(counter.calls.readdir, 0);
  console.log(`first scan of ${COUNT} files: ${scan.stat} stats, ${scan.readdir} listing(s), ${scan.watch} watch(es), ${scan.ms} ms; ${starts} run starts: ${counter.calls.stat} stats (${counter.calls.stat / starts} per start), ${counter.calls.readdir} listings`);
});

test('1,000 definitions: event routing reads the index, no listing or stat per event', { timeout: 120_000 }, async () => {
  const counter = countingFs();
  const r = registry({ fs: counter.fs, rescanMs: 3_600_000 });
  await r.watch();
  counter.reset();
  const events = 200;
  const t0 = process.cpuUsage();
  for (let k = 0; k < events; k++) assert.ok((await r.indexedDefinitions()).length >= COUNT - 2);
  const indexed = process.cpuUsage(t0);
  assert.deepEqual({ stat: counter.calls.stat, readdir: counter.calls.readdir }, { stat: 0, readdir: 0 }, 'no file-system call per event');
  // What the gateway did before: a listing of the folder and a stat of every file, per event.
  counter.reset();
  const t1 = process.cpuUsage();
  for (let k = 0; k < 20; k++) await r.allDefinitions();
  const listed = process.cpuUsage(t1);
  assert.equal(counter.calls.readdir, 20);
  assert.ok(counter.calls.stat >= 20 * (COUNT - 2), `${counter.calls.stat} stats`);
  // A file added is routed without a restart: the watch puts it in the index.
  writeFileSync(join(dir, 'routed-late.sw.json'), doc('routedLate'));
  const ms = await within(5_000, 'routedLate in the index', async () => (await r.indexedDefinitions()).some((d) => d.id === 'routedLate'));
  unlinkSync(join(dir, 'routed-late.sw.json'));
  const per = (u: NodeJS.CpuUsage, n: number) => ((u.user + u.system) / n / 1000).toFixed(3);
  console.log(`${events} routings from the index: 0 stats, 0 listings, ${per(indexed, events)} ms CPU each; a listing per routing (before): ${COUNT}+ stats, ${per(listed, 20)} ms CPU each; a file added is routed ${ms} ms after it was written`);
});

test('a file added, a new version and a changed file are served without a restart', { timeout: 60_000 }, async () => {
  const counter = countingFs();
  const r = registry({ fs: counter.fs, rescanMs: 3_600_000 }); // the watch alone
  await r.watch();
  const logs: string[] = [];
  const watched = registry({ log: (m) => logs.push(m), rescanMs: 3_600_000 });
  await watched.watch();

  // A new id: a run start that misses the index lists the folders once more, then finds it.
  writeFileSync(join(dir, 'fresh.sw.json'), doc('fresh'));
  counter.reset();
  assert.equal((await r.resolve('fresh')).def.id, 'fresh');
  console.log(`a new id resolves at once (a miss re-lists: ${counter.calls.readdir} listing(s), ${counter.calls.stat} stats)`);

  // A higher version in a new file: the index picks it up from the watch (no run start re-lists on a hit).
  writeFileSync(join(dir, 'def5-v2.sw.json'), doc('def5', '2.0'));
  const ms = await within(5_000, 'def5@2.0 through the watch', async () => (await watched.resolve('def5')).def.version === '2.0');
  assert.match(logs.join('\n'), /definition def5@2\.0 added \(.*def5-v2\.sw\.json\)/);
  console.log(`a new version in a new file is served ${ms} ms after it was written (watch), logged: ${logs.find((l) => l.includes('def5@2.0'))}`);

  // A changed file: the run start's own stat sees the edit, before any watch event.
  writeFileSync(fileOf(7), doc('def7', '3.0', 'changed'));
  counter.reset();
  const changed = await r.resolve('def7');
  assert.equal(changed.def.version, '3.0');
  assert.deepEqual((changed.def as any).states[0].data, { id: 'def7', note: 'changed' });
  const atStart = { ...counter.calls };
  assert.ok(atStart.stat <= 2 && atStart.readdir === 0, `stats ${atStart.stat}, listings ${atStart.readdir}`);
  await assert.rejects(r.resolve('def7@1.0'), DefinitionNotFound, 'the old version is gone with the edit');
  console.log(`a changed file gives its new version at the next run start (${atStart.stat} stat(s), ${atStart.readdir} listings); the old version no longer resolves`);
});

test('without a watch (a folder that cannot be watched), the periodic re-scan finds changes', { timeout: 60_000 }, async () => {
  const logs: string[] = [];
  const failing = countingFs({
    watch: (() => {
      throw Object.assign(new Error('inotify watch limit reached'), { code: 'ENOSPC' });
    }) as typeof fs.watch,
  });
  const r = registry({ fs: failing.fs, rescanMs: 200, log: (m) => logs.push(m) });
  await r.watch();
  assert.match(logs.join('\n'), /cannot be watched \(ENOSPC\); its changes are seen by the periodic re-scan/);
  writeFileSync(join(dir, 'def9-v2.sw.json'), doc('def9', '2.0'));
  const ms = await within(5_000, 'def9@2.0 through the re-scan', async () => (await r.resolve('def9')).def.version === '2.0');
  console.log(`watch refused (ENOSPC, said once: ${logs.filter((l) => l.includes('cannot be watched')).length} line); a new version is served after ${ms} ms (re-scan every 200 ms)`);
});

test('a broken file is reported with file:line once per change and skipped; the 998 others resolve', { timeout: 120_000 }, async () => {
  const logs: string[] = [];
  const counter = countingFs();
  const r = registry({ fs: counter.fs, log: (m) => logs.push(m), rescanMs: 3_600_000 });
  await r.watch();
  const broken = fileOf(3);
  writeFileSync(broken, '{\n  "id": "def3",\n  "version": "1.0",\n  "specVersion": "0.8",\n  "start": "a" "b",\n  "states": []\n}\n'); // two strings on line 5
  const schemaBroken = fileOf(4);
  writeFileSync(schemaBroken, JSON.stringify({ id: 'def4', version: '1.0', specVersion: '0.8', start: 'a', states: [{ name: 'a', type: 'nosuchtype', end: true }] }, null, 2));
  await r.all();
  await r.all(); // unchanged: not reported again
  const problems = r.problems();
  assert.deepEqual(problems.map((p) => p.path).sort(), [broken, schemaBroken].sort());
  const parse = problems.find((p) => p.path === broken)!.problem;
  assert.match(parse, new RegExp(`^${broken.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:5:\\d+: error: `), parse);
  const schema = problems.find((p) => p.path === schemaBroken)!.problem;
  assert.match(schema, /:\d+:\d+: error: /, schema);
  const said = (path: string) => logs.filter((l) => l.startsWith('definition file skipped') && l.includes(path));
  assert.equal(said(broken).length, 1, logs.join('\n'));
  assert.equal(said(schemaBroken).length, 1, logs.join('\n'));
  await assert.rejects(r.resolve('def3'), (err: Error) => err instanceof DefinitionNotFound && err.message.includes(`Files that did not load: `) && err.message.includes(broken));

  counter.reset();
  let resolved = 0;
  for (let i = 0; i < COUNT; i++) if (i !== 3 && i !== 4 && i !== 7) resolved += (await r.resolve(`def${i}`)).def.id === `def${i}` ? 1 : 0;
  resolved += (await r.resolve('def7')).def.id === 'def7' ? 1 : 0; // changed by the test before (version 3.0)
  assert.equal(resolved, COUNT - 2);
  const starts = { ...counter.calls };
  assert.ok(starts.stat <= COUNT - 2 && starts.readdir === 0, `stats ${starts.stat}, listings ${starts.readdir}`);

  // Fixed: served again, and a new break is reported again.
  writeFileSync(broken, doc('def3'));
  assert.equal((await r.resolve('def3')).def.id, 'def3');
  writeFileSync(broken, '{ "id": "def3", ');
  await r.all();
  assert.equal(said(broken).length, 2);
  console.log(`2 broken files (parse error at line 5, schema error) reported once each (${logs.filter((l) => l.startsWith('definition file skipped')).length} log lines over 2 scans): "${said(broken)[0]}"; the other ${resolved} resolve with ${starts.stat} stats, ${starts.readdir} listings`);
  writeFileSync(broken, doc('def3'));
  writeFileSync(schemaBroken, doc('def4'));
});

test('a deleted file stops resolving at the next run start; the watch drops it from the index', { timeout: 60_000 }, async () => {
  const logs: string[] = [];
  const r = registry({ log: (m) => logs.push(m), rescanMs: 3_600_000 });
  assert.equal((await r.resolve('def11')).def.id, 'def11');
  unlinkSync(fileOf(11));
  await assert.rejects(r.resolve('def11'), DefinitionNotFound);
  await assert.rejects(r.resolve('def11@1.0'), DefinitionNotFound);
  // Another id's file, dropped by the watch alone (no run start of it): gone from the log and all().
  unlinkSync(fileOf(12));
  const ms = await within(5_000, 'def12 dropped by the watch', async () => logs.some((l) => /definition def12@1\.0 removed/.test(l)));
  assert.ok(!(await r.allDefinitions()).some((d) => d.id === 'def12'));
  console.log(`a deleted file fails its next run start (DefinitionNotFound); another is dropped by the watch in ${ms} ms: "${logs.find((l) => l.includes('def12'))}"`);
});

test('a Kubernetes ConfigMap volume updated (its `..data` link swapped) is re-read through the watch', { timeout: 60_000 }, async () => {
  // The layout the kubelet writes: files are links through `..data` to a timestamped folder, and
  // an update swaps `..data` at once (no event names the files themselves).
  const cm = mkdtempSync(join(tmpdir(), 'swflow-configmap-'));
  try {
    fs.mkdirSync(join(cm, '..2026_11_28_a'));
    writeFileSync(join(cm, '..2026_11_28_a', 'cm.sw.json'), doc('cm'));
    fs.symlinkSync('..2026_11_28_a', join(cm, '..data'));
    fs.symlinkSync(join('..data', 'cm.sw.json'), join(cm, 'cm.sw.json'));
    const logs: string[] = [];
    const r = new DefinitionRegistry([cm], { log: (m) => logs.push(m), rescanMs: 3_600_000 });
    registries.push(r);
    assert.equal((await r.resolve('cm')).def.version, '1.0');
    assert.deepEqual(r.problems(), []);

    fs.mkdirSync(join(cm, '..2026_11_28_b'));
    writeFileSync(join(cm, '..2026_11_28_b', 'cm.sw.json'), '{ "id": "cm", ');
    fs.symlinkSync('..2026_11_28_b', join(cm, '..data_tmp'));
    fs.renameSync(join(cm, '..data_tmp'), join(cm, '..data'));
    const ms = await within(5_000, 'the broken update reported', async () => r.problems().length === 1);
    assert.match(r.problems()[0].problem, /cm\.sw\.json:\d+:\d+: error: /);
    assert.equal(logs.filter((l) => l.startsWith('definition file skipped')).length, 1);
    console.log(`a ConfigMap update (..data swapped) to a broken file is reported ${ms} ms later without a run start: "${logs.find((l) => l.startsWith('definition file skipped'))}"`);
  } finally {
    rmSync(cm, { recursive: true, force: true });
  }
});

test('API and schema documents beside the definitions are left alone; a broken definition among them is reported, once', { timeout: 60_000 }, async () => {
  const beside = mkdtempSync(join(tmpdir(), 'swflow-beside-'));
  try {
    fs.mkdirSync(join(beside, 'specs'));
    writeFileSync(join(beside, 'specs', 'greeting.openapi.json'), JSON.stringify({ openapi: '3.0.3', info: { title: 'Greeting', version: '1.0' }, paths: { '/greeting': { get: { operationId: 'greeting', responses: { 200: { description: 'ok' } } } } } }, null, 2));
    writeFileSync(join(beside, 'specs', 'legacy.swagger.yaml'), 'swagger: "2.0"\ninfo:\n  title: Legacy\n  version: "1"\npaths: {}\n');
    writeFileSync(join(beside, 'specs', 'orders.asyncapi.yaml'), 'asyncapi: 2.6.0\ninfo:\n  title: Orders\n  version: 1.0.0\nchannels:\n  orders:\n    subscribe:\n      message:\n        payload:\n          type: object\n');
    writeFileSync(join(beside, 'specs', 'person.schema.json'), JSON.stringify({ $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', required: ['name'], properties: { name: { type: 'string' } } }, null, 2));
    writeFileSync(join(beside, 'specs', 'greeter.proto'), 'syntax = "proto3";\nservice Greeter { rpc Greet (Req) returns (Rep); }\nmessage Req { string name = 1; }\nmessage Rep { string greeting = 1; }\n');
    writeFileSync(join(beside, 'specs', 'schema.graphql'), 'type Query { greeting(name: String!): String }\n');
    writeFileSync(join(beside, 'greeting.sw.json'), doc('greeting'));
    writeFileSync(join(beside, 'hello.sw.yaml'), 'document:\n  dsl: 1.0.0\n  namespace: examples\n  name: hello\n  version: 1.0.0\ndo:\n  - say:\n      set:\n        greeting: hello\n');
    const broken = join(beside, 'broken.sw.json');
    writeFileSync(broken, JSON.stringify({ id: 'broken', version: '1.0', specVersion: '0.8', start: 'a', states: [{ name: 'a', type: 'nosuchtype', end: true }] }, null, 2));

    const logs: string[] = [];
    const r = new DefinitionRegistry([beside], { log: (m) => logs.push(m), rescanMs: 3_600_000 });
    registries.push(r);
    await r.watch();
    const { entries } = await r.all();
    assert.deepEqual(entries.map((e) => e.def.id).sort(), ['examples/hello', 'greeting']);
    const skips = logs.filter((l) => l.startsWith('definition file skipped'));
    assert.equal(skips.length, 1, logs.join('\n'));
    assert.match(skips[0], new RegExp(`^definition file skipped: ${broken.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:\\d+:\\d+: error: `));
    assert.deepEqual(r.problems().map((p) => p.path), [broken]);

    // A definition edited into an OpenAPI document is gone, said as such, and not reported as broken.
    writeFileSync(join(beside, 'greeting.sw.json'), readFileSync(join(beside, 'specs', 'greeting.openapi.json')));
    await r.all();
    assert.ok(logs.some((l) => l === `definition greeting@1.0 removed (${join(beside, 'greeting.sw.json')} is now an OpenAPI document)`), logs.join('\n'));
    assert.equal(logs.filter((l) => l.startsWith('definition file skipped')).length, 1, logs.join('\n'));

    // Named as a definition file, an API document is refused as one, in so many words.
    const given = new DefinitionRegistry([join(beside, 'specs', 'orders.asyncapi.yaml')], { rescanMs: 3_600_000 });
    registries.push(given);
    await given.all();
    assert.match(given.problems()[0]?.problem ?? '', /orders\.asyncapi\.yaml:1:1: error: an AsyncAPI document, not a workflow definition/);
    console.log(`OpenAPI, Swagger, AsyncAPI, JSON Schema, .proto and .graphql files beside definitions: no log line; the broken definition: "${skips[0]}"`);
  } finally {
    rmSync(beside, { recursive: true, force: true });
  }
});

test('the shipped examples/ folder loads with no file skipped', { timeout: 60_000 }, async () => {
  const logs: string[] = [];
  const r = new DefinitionRegistry([join(PROJECT_ROOT, 'examples')], { log: (m) => logs.push(m), rescanMs: 3_600_000 });
  registries.push(r);
  const { entries, broken } = await r.all();
  assert.deepEqual(logs.filter((l) => l.startsWith('definition file skipped')), []);
  assert.deepEqual(broken, []);
  assert.ok(entries.some((e) => e.source === join(PROJECT_ROOT, 'examples', 'greeting.sw.json')), 'the greeting example, whose OpenAPI document is examples/myapis/greetingapis.json');
});
