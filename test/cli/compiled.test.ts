/**
 * The swflow command's compiled JavaScript (bin/compiled.js): one tree per content of the
 * sources (a change makes a new one, so stale code never runs), `__dirname` kept the source's
 * folder, and the workflow code bundled from it: from the TypeScript sources, as in the tests
 * (leaner per workflow run than esbuild's CommonJS), replaying every recorded history
 * (test/workflow/replay.test.ts).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync, copyFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { FIXTURES_DIR, replayFixtures } from '../workflow/helpers';

const ROOT = join(__dirname, '..', '..');
const run = promisify(execFile);
const compiled = require('../../bin/compiled') as { compiledTree(): Promise<string> };

test('a changed source compiles to a new tree; an unchanged one reuses it; __dirname stays the source folder', async () => {
  // A project of its own: bin/compiled.js, one source, the packages.
  const dir = mkdtempSync(join(tmpdir(), 'swflow-compiled-'));
  try {
    mkdirSync(join(dir, 'bin'));
    mkdirSync(join(dir, 'src', 'x'), { recursive: true });
    copyFileSync(join(ROOT, 'bin', 'compiled.js'), join(dir, 'bin', 'compiled.js'));
    symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
    const source = join(dir, 'src', 'x', 'a.ts');
    const answer = async () => {
      const { stdout } = await run(process.execPath, ['-e', `require(${JSON.stringify(join(dir, 'bin', 'compiled.js'))}).compiledTree().then((t) => { const m = require(t + '/src/x/a.js'); console.log(JSON.stringify({ t, said: m.said, where: m.where })); })`], { env: { ...process.env, SWFLOW_CACHE: '' } });
      return JSON.parse(stdout) as { t: string; said: string; where: string };
    };
    writeFileSync(source, `export const said: string = 'one';\nexport const where = __dirname;\n`);
    const first = await answer();
    assert.deepEqual([first.said, first.where], ['one', join(dir, 'src', 'x')]);
    assert.ok(first.t.startsWith(join(dir, '.cache', 'js')), first.t);
    assert.equal((await answer()).t, first.t, 'unchanged sources: the same tree');
    writeFileSync(source, `export const said: string = 'two';\nexport const where = __dirname;\n`);
    const second = await answer();
    assert.equal(second.said, 'two');
    assert.notEqual(second.t, first.t);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the workflow code bundled by the compiled tree comes from the TypeScript sources and replays every recorded history', async () => {
  const tree = await compiled.compiledTree();
  const out = join(mkdtempSync(join(tmpdir(), 'swflow-compiled-bundle-')), 'bundle.js');
  await run(process.execPath, [join(tree, 'src', 'worker', 'bundle-main.js'), out], { maxBuffer: 1 << 24 });
  const bundle = { code: readFileSync(out, 'utf8') };
  rmSync(out, { force: true });
  assert.match(bundle.code, /"\.\/src\/workflow\/index\.ts"/, 'bundled from the TypeScript sources');
  assert.doesNotMatch(bundle.code, /\.cache\/js\/[0-9a-f]+\/src\//, 'not from the compiled JavaScript');
  assert.ok(existsSync(FIXTURES_DIR));
  const { files, replayed, failures } = await replayFixtures({ workflowBundle: bundle });
  assert.ok(files.length >= 5, `expected recorded histories, found ${files.length}`);
  assert.equal(replayed, files.length);
  assert.deepEqual(failures, []);
});
