/** The `swflow test` and `swflow run` commands, end to end (spawned like a user would). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { shuffled } from '../../src/testing/order';

const ROOT = resolve(__dirname, '..', '..');

/** Through bin/swflow.js, exactly what `npx swflow` runs. */
function swflow(args: string[], env: NodeJS.ProcessEnv = {}) {
  const r = spawnSync(process.execPath, [join(ROOT, 'bin', 'swflow.js'), ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, ...env },
    timeout: 240_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

test('swflow test: PASS/FAIL lines, summary, exit status', () => {
  const dir = mkdtempSync(join(tmpdir(), 'swflow-cli-'));
  writeFileSync(
    join(dir, 'hello.sw.yaml'),
    "id: hello\nspecVersion: '0.8'\nstart: Hi\nstates:\n  - { name: Hi, type: inject, data: { msg: hi }, end: true }\n",
  );
  writeFileSync(join(dir, 'good.case.yaml'), 'workflow: ./hello.sw.yaml\nexpect:\n  output: { msg: hi }\n  states: [ Hi ]\n');
  const nested = join(dir, 'nested');
  mkdirSync(nested);
  writeFileSync(join(nested, 'bad.case.json'), JSON.stringify({ workflow: '../hello.sw.yaml', expect: { output: { msg: 'bye' } } }));

  const all = swflow(['test', dir]);
  assert.equal(all.code, 1, all.stdout + all.stderr);
  const lines = all.stdout.trim().split('\n');
  assert.ok(lines.includes('PASS good'), all.stdout);
  assert.ok(lines.some((l) => l.startsWith('FAIL bad: output differs')), all.stdout);
  assert.match(all.stdout, /-\s+"msg": "bye"\n\s+\+\s+"msg": "hi"/);
  assert.equal(lines[lines.length - 1], '1 passed, 1 failed');

  const one = swflow(['test', join(dir, 'good.case.yaml')]);
  assert.equal(one.code, 0, one.stdout + one.stderr);
  assert.equal(one.stdout.trim().split('\n').pop(), '1 passed, 0 failed');
});

test('swflow test --shuffle / --seed: prints the seed, runs the cases in its order', () => {
  const dir = mkdtempSync(join(tmpdir(), 'swflow-cli-'));
  writeFileSync(join(dir, 'hello.sw.yaml'), "id: hello\nspecVersion: '0.8'\nstart: Hi\nstates:\n  - { name: Hi, type: inject, data: { msg: hi }, end: true }\n");
  const names = ['c1', 'c2', 'c3', 'c4', 'c5'];
  for (const n of names) writeFileSync(join(dir, `${n}.case.yaml`), 'workflow: ./hello.sw.yaml\nexpect:\n  output: { msg: hi }\n');
  const passed = (stdout: string) => stdout.split('\n').filter((l) => l.startsWith('PASS ')).map((l) => l.slice('PASS '.length));

  const random = swflow(['test', '--shuffle', dir]);
  assert.equal(random.code, 0, random.stdout + random.stderr);
  const m = /^shuffled with seed (\d+) \(this order again: --seed \1\)$/m.exec(random.stdout);
  assert.ok(m, random.stdout);
  assert.deepEqual(passed(random.stdout), shuffled(names, Number(m[1])));

  const again = swflow(['test', '--seed', '7', dir]);
  assert.equal(again.code, 0, again.stdout + again.stderr);
  assert.equal(again.stdout.split('\n')[0], 'shuffled with seed 7 (this order again: --seed 7)');
  assert.deepEqual(passed(again.stdout), shuffled(names, 7));
  assert.notDeepEqual(shuffled(names, 7), names);

  const bad = swflow(['test', '--seed', 'x', dir]);
  assert.equal(bad.code, 1);
  assert.match(bad.stderr, /--seed takes an integer from 0 to 4294967295; got "x"/);
});

test('swflow run: prints the states entered and the output', () => {
  const dir = mkdtempSync(join(tmpdir(), 'swflow-run-'));
  const file = join(dir, 'greet.sw.yaml');
  writeFileSync(
    file,
    [
      'id: greet',
      "specVersion: '0.8'",
      'start: Hello',
      'events: [ { name: Go, type: go-type, source: me } ]',
      'states:',
      '  - { name: Hello, type: inject, data: { greeting: hi }, transition: WaitGo }',
      "  - { name: WaitGo, type: event, onEvents: [ { eventRefs: [ Go ], eventDataFilter: { toStateData: '${ .go }' } } ], end: true }",
      '',
    ].join('\n'),
  );
  writeFileSync(join(dir, 'input.json'), '{"name":"x"}');
  const r = swflow(['run', file, '--input', `@${join(dir, 'input.json')}`, '--event', '{"type":"go-type","source":"me","data":{"ok":1}}'], {
    TEMPORAL_ADDRESS: '',
  });
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.match(r.stdout, /→ Hello\n→ WaitGo\n/);
  assert.match(r.stdout, /Output:\n\{\n {2}"name": "x",\n {2}"greeting": "hi",\n {2}"go": \{\n {4}"ok": 1/);

  const bad = join(dir, 'bad.sw.yaml');
  writeFileSync(bad, "id: bad\nspecVersion: '0.8'\nstart: A\nstates:\n  - { name: A, type: inject, data: {}, transition: Nowhere }\n");
  const invalid = swflow(['run', bad]);
  assert.equal(invalid.code, 1);
  assert.match(invalid.stderr, /Nowhere/);
  assert.match(invalid.stderr, /does not validate; nothing was run/);
});
