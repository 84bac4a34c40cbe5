/**
 * No import cycle in the interpreter (src/workflow), and the 0.8 executors see their run only
 * through the narrow StateContext (states/context.ts), never the Runtime class. The check itself
 * (test/helpers/import-cycles.ts) is run here on small graphs it must catch.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { findCycles, importCycles, importGraph } from '../../helpers/import-cycles';

test('src/workflow has no import cycle (run-time imports)', () => {
  assert.deepEqual(importCycles('src/workflow'), []);
});

test('src/workflow has no import cycle even counting type imports', () => {
  assert.deepEqual(importCycles('src/workflow', { types: true }), []);
});

test('no 0.8 executor or helper imports v08/run.ts, even for types: they see a StateContext (only the 0.8 front end builds a Runtime)', () => {
  const graph = importGraph('src/workflow', { types: true });
  const importers = [...graph].filter(([, deps]) => deps.some((d) => d.endsWith('/src/workflow/v08/run.ts'))).map(([f]) => f.slice(f.indexOf('src/workflow/')));
  assert.deepEqual(importers.sort(), ['src/workflow/v08/front-end.ts']);
});

test('the check finds cycles, and ignores type-only imports unless asked', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cycles-'));
  try {
    writeFileSync(join(dir, 'a.ts'), "import { b } from './b';\nexport const a = b;\n");
    writeFileSync(join(dir, 'b.ts'), "import type { C } from './c';\nexport const b = 1;\nexport type B = C;\n");
    writeFileSync(join(dir, 'c.ts'), "import { type A2, a } from './a';\nexport type C = typeof a;\n");
    writeFileSync(join(dir, 'd.ts'), "export { b } from './b';\nimport './d';\n");
    // a → b (value), b → c (type only), c → a (value: `a` is not a type import): a cycle only with types.
    const names = (cycles: string[][]) => cycles.map((c) => c.map((f) => basename(f))).sort();
    assert.deepEqual(names(importCycles(dir)), [['d.ts', 'd.ts']]);
    assert.deepEqual(names(importCycles(dir, { types: true })), [['a.ts', 'b.ts', 'c.ts', 'a.ts'], ['d.ts', 'd.ts']]);
    // Make b's import a value: the cycle is a run-time one.
    writeFileSync(join(dir, 'b.ts'), "import { c } from './c';\nexport const b = c;\n");
    writeFileSync(join(dir, 'c.ts'), "import { a } from './a';\nexport const c = () => a;\n");
    assert.deepEqual(names(importCycles(dir)), [['a.ts', 'b.ts', 'c.ts', 'a.ts'], ['d.ts', 'd.ts']]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  assert.deepEqual(findCycles(new Map([['x', ['y']], ['y', []]])), []);
});
