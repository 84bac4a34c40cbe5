/**
 * Definition files are read and checked in a short-lived worker thread (src/definitions/check-apart.ts)
 * so a process serving them never makes a jq instance in its main thread (issue 34, item 9): the
 * checks (jq syntax included) still report file:line, loads of one file at once are one check, the
 * thread ends when idle and a later change starts another. Real files in a temporary folder.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DefinitionRegistry } from '../../src/definitions/registry';
import { checkThreadRunning, checkThreadsStarted, IDLE_MS } from '../../src/definitions/check-apart';
import { jqEngineStats } from '../../src/expr/engine';
import { evaluateExpression } from '../../src/expr';

const dir = mkdtempSync(join(tmpdir(), 'swflow-check-apart-'));
const registries: DefinitionRegistry[] = [];
after(() => {
  for (const r of registries) r?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A 0.8 definition whose switch condition is `condition` (a jq expression the checks compile). */
const doc = (id: string, condition: string) =>
  JSON.stringify(
    {
      id,
      version: '1.0',
      specVersion: '0.8',
      start: 's',
      states: [
        { name: 's', type: 'switch', dataConditions: [{ condition, transition: 'a' }], defaultCondition: { transition: 'a' } },
        { name: 'a', type: 'inject', data: { id }, end: true },
      ],
    },
    null,
    2,
  );

test('definitions are checked in a thread of their own: no jq instance here, file:line kept, the thread ends when idle', async () => {
  writeFileSync(join(dir, 'good.sw.json'), doc('good', '${ .n > 1 }'));
  writeFileSync(join(dir, 'bad.sw.json'), doc('bad', '${ .n > }'));
  // A 1.0 YAML document too (its checks load src/expr in the thread).
  writeFileSync(join(dir, 'wake.sw.yaml'), 'document: { dsl: 1.0.0, namespace: tests, name: wake, version: 1.0.0 }\ndo:\n  - pick:\n      set: { big: "${ .n > 1 }" }\n');
  const logged: string[] = [];
  const a = new DefinitionRegistry([dir], { log: (m) => logged.push(m) });
  const b = new DefinitionRegistry([dir]);
  registries.push(a, b);
  const startedBefore = checkThreadsStarted();
  // Two registries at once (a worker and a gateway in one process): one thread.
  const [ra, rb] = await Promise.all([a.all(), b.all()]);
  assert.equal(checkThreadsStarted() - startedBefore, 1);
  for (const r of [ra, rb]) {
    assert.deepEqual(r.entries.map((e) => e.def.id).sort(), ['good', 'tests/wake'], JSON.stringify(r.broken));
    assert.equal(r.broken.length, 1);
    assert.match(r.broken[0].problem, /bad\.sw\.json:\d+:\d+: error: .*syntax error/);
  }
  assert.equal((await a.resolve('good')).def.id, 'good');
  assert.equal(jqEngineStats().instances, 0, 'no jq instance in the main thread');
  assert.match(logged.join('\n'), /definition file skipped: .*bad\.sw\.json:\d+:\d+/);
  console.log(`2 registries, 3 files (0.8 JSON, 1.0 YAML, a broken one): 1 thread started, jq instances in the main thread: ${jqEngineStats().instances}; "${r0(rb.broken[0].problem)}"`);

  const t0 = Date.now();
  while (checkThreadRunning() && Date.now() - t0 < IDLE_MS + 5000) await new Promise((r) => setTimeout(r, 50));
  assert.equal(checkThreadRunning(), false, `the thread ends within ${IDLE_MS} ms of idleness`);
  const endedMs = Date.now() - t0;

  // A change after that: another thread checks it.
  writeFileSync(join(dir, 'good.sw.json'), doc('good', '${ .n > 2 }'));
  const again = new DefinitionRegistry([dir]);
  registries.push(again);
  const { entries } = await again.all();
  assert.equal(entries.length, 2);
  assert.equal(checkThreadsStarted() - startedBefore, 2);
  // The expression evaluates here as before (the engine made at first use).
  assert.equal(evaluateExpression('${ .n > 2 }', { n: 3 }), true);
  assert.equal(jqEngineStats().instances, 1);
  console.log(`the thread ended ${endedMs} ms after its last answer (idle ${IDLE_MS} ms); a later load started thread 2; jq made here only at first evaluation`);
});

const r0 = (s: string) => s.replace(dir, '<dir>');
