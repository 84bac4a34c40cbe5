/**
 * `swflow validate` on mutated corpus definitions (test/reliability/mutate.ts): deleted keys, wrong
 * types, transition cycles, 10,000-level nesting, truncation, garbage and non-UTF-8 bytes, YAML
 * alias bombs, a 10 MB document. Every one gets an answer with a message and no stack trace: the
 * loader in-process for all of them (fast), the real CLI for a sample and for the pathological ones,
 * which must exit 0 or 1 within 10 s with a bounded heap (--max-old-space-size: exceeding it crashes
 * the process, which fails the test). SWFLOW_SOAK=1: 5,000 mutants, one in ten through the CLI.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { loadAnyDefinitionFile } from '../../src/dsl';
import { CORPUS } from '../dsl/corpus-lib';
import { mutants, pathological, type Mutant } from './mutate';

const ROOT = resolve(__dirname, '..', '..');
const SOAK = process.env.SWFLOW_SOAK === '1';
const COUNT = SOAK ? 5000 : 1000;
const CLI_EVERY = SOAK ? 10 : 100;
/** The bound the issue sets for one `swflow validate` run. */
const CLI_TIMEOUT_MS = 10_000;
const HEAP_MB = 512;
const STACK = /\n\s+at .+[:(]\d+:\d+\)?/;

function corpusFiles(dir = CORPUS): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((n) => {
      const p = join(dir, n);
      if (statSync(p).isDirectory()) return n === 'schema' ? [] : corpusFiles(p);
      return /\.(json|ya?ml)$/i.test(n) ? [p] : [];
    });
}

const work = mkdtempSync(join(tmpdir(), 'swflow-fuzz-'));
let seq = 0;
/** The mutant as a file; the original's folder stays the base for relative references. */
function write(m: Mutant): string {
  const file = join(work, `m${seq++}${m.ext}`);
  writeFileSync(file, m.bytes);
  return file;
}
const baseDirOf = (m: Mutant) => (m.name.startsWith('/') ? dirname(m.name.split(':')[0]) : undefined);

function validateCli(file: string): Promise<{ code: number | null; signal: NodeJS.Signals | null; out: string; timedOut: boolean }> {
  const child = spawn(process.execPath, [`--max-old-space-size=${HEAP_MB}`, join(ROOT, 'bin', 'swflow.js'), 'validate', file], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  let timedOut = false;
  const timer = setTimeout(() => ((timedOut = true), child.kill('SIGKILL')), CLI_TIMEOUT_MS);
  return new Promise((done) =>
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      done({ code, signal, out, timedOut });
    }),
  );
}

test(`${COUNT} mutated corpus definitions: the loader answers each with a definition or an error message, never a throw`, async () => {
  const all = mutants(corpusFiles(), COUNT);
  assert.ok(all.length >= COUNT * 0.95, `only ${all.length} mutants`);
  let invalid = 0;
  let worst = { ms: 0, name: '' };
  for (const m of all) {
    const file = write(m);
    const t0 = performance.now();
    const r = await loadAnyDefinitionFile(file, { baseDir: baseDirOf(m) }).catch((err: Error) => assert.fail(`${m.name}: threw ${err.stack}`));
    const ms = performance.now() - t0;
    if (ms > worst.ms) worst = { ms, name: m.name };
    if (!r.definition) {
      invalid++;
      const errors = r.problems.filter((p) => p.severity === 'error');
      assert.ok(errors.length > 0, `${m.name}: invalid without an error`);
      for (const p of errors) assert.ok(p.message.trim() && !STACK.test(p.message), `${m.name}: message ${JSON.stringify(p.message)}`);
    }
  }
  console.log(`# ${all.length} mutants, ${invalid} invalid; slowest ${Math.round(worst.ms)} ms (${worst.name})`);
  assert.ok(invalid > all.length / 4, 'the mutations make most definitions invalid');
});

test('swflow validate (the CLI) on the pathological documents and a sample of mutants: exit 0 or 1 within 10 s, a message, no stack trace, bounded heap', async () => {
  const heavy = pathological();
  const sample = mutants(corpusFiles(), COUNT, 7).filter((_, i) => i % CLI_EVERY === 0);
  const results: string[] = [];
  // The pathological documents one at a time (the 10 MB one needs its CPU), the others two at a time.
  const groups = [...heavy.map((m) => [m]), ...Array.from({ length: Math.ceil(sample.length / 2) }, (_, i) => sample.slice(2 * i, 2 * i + 2))];
  for (const group of groups) {
    await Promise.all(
      group.map(async (m) => {
        const r = await validateCli(write(m));
        const what = `${m.name}: exit ${r.code ?? r.signal}${r.timedOut ? ' (killed after 10 s)' : ''}\n${r.out.slice(0, 2000)}`;
        assert.ok(!r.timedOut, what);
        assert.ok(r.code === 0 || r.code === 1, what);
        assert.match(r.out, r.code === 0 ? /: valid \(/ : /: invalid \(\d+ errors?/, what);
        assert.doesNotMatch(r.out, STACK, what);
        results.push(`${m.name}: ${r.code}`);
      }),
    );
  }
  console.log(`# ${results.length} CLI runs`);
});

test('cleanup', () => rmSync(work, { recursive: true, force: true }));
