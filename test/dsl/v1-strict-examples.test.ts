/**
 * `swflow validate --strict` (warnings are errors) over every example document of the 1.0.3
 * specification, run as the real command: each is accepted, except the few that swflow cannot
 * run as written, each refused for exactly the reason listed here (so the list shrinks, and this
 * test fails, as soon as one of them becomes runnable).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join, resolve, basename } from 'node:path';

const ROOT = resolve(__dirname, '..', '..');
const EXAMPLES = resolve(ROOT, '..', 'shared', 'specs', 'serverless-workflow-1.0.3', 'examples');

/**
 * Documents refused under --strict, and why: none (each would name its reason here). What a
 * document needs to run (run.container/shell/script on the opt-in worker) is an info, accepted.
 */
const REFUSED: Record<string, RegExp> = {};

interface Result {
  source: string;
  valid: boolean;
  problems: { severity: string; message: string }[];
}

test('swflow validate --strict accepts every 1.0.3 example (with infos at most)', () => {
  const files = readdirSync(EXAMPLES).filter((f) => f.endsWith('.yaml')).sort();
  assert.ok(files.length > 60, `examples found: ${files.length}`);
  const r = spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'src/cli/main.ts'), 'validate', '--strict', '--json', ...files.map((f) => join(EXAMPLES, f))], { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  assert.equal(r.status, Object.keys(REFUSED).length ? 1 : 0, `validate's exit code: ${r.stderr}`);
  const results = JSON.parse(r.stdout) as Result[];
  assert.equal(results.length, files.length);
  const wrong: string[] = [];
  for (const res of results) {
    const file = basename(res.source);
    const why = REFUSED[file];
    const messages = res.problems.map((p) => `${p.severity}: ${p.message}`);
    if (!why) {
      // Accepted: valid, with at most infos (what the document needs to run, e.g. an opt-in worker).
      if (!res.valid || res.problems.some((p) => p.severity !== 'info')) wrong.push(`${file} should be accepted: ${messages.join('; ')}`);
    } else if (res.valid || !res.problems.length || !res.problems.every((p) => p.severity === 'error' && why.test(p.message))) {
      wrong.push(`${file} should be refused only for ${why}: ${res.valid ? 'accepted' : messages.join('; ')}`);
    }
  }
  assert.deepEqual(wrong, []);
  for (const f of Object.keys(REFUSED)) assert.ok(files.includes(f), `${f} is not an example (any more)`);
  // The examples of what this branch built are among the accepted ones.
  for (const f of ['mock-service-extension.yaml', 'try-catch-then.yaml', 'schedule-event-driven.yaml', 'emit.yaml', 'for.yaml', 'run-subflow.yaml']) assert.ok(files.includes(f) && !REFUSED[f]);
});
