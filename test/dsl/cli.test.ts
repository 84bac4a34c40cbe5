/** `swflow validate` / `swflow diagram`, run as the real command (npx tsx src/cli/main.ts). */
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..');
const FX = path.join(__dirname, 'fixtures');

function swflow(...args: string[]): { code: number | null; out: string; err: string } {
  const r = spawnSync(process.execPath, ['--import', 'tsx', path.join(ROOT, 'src/cli/main.ts'), ...args], { cwd: ROOT, encoding: 'utf8' });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

test('validate: one definition with a YAML syntax error, a schema error and a dangling transition prints three located messages', () => {
  const f = path.join(FX, 'broken.sw.yaml');
  const r = swflow('validate', f);
  assert.equal(r.code, 1);
  const lines = r.out.trim().split('\n');
  assert.deepEqual(lines, [
    `${f}:8:17: error: transition to unknown state 'Nowhere' (known states: A, B)`,
    `${f}:11:15: error: 'duration' must be a string`,
    `${f}:14:1: error: YAML syntax error: Flow sequence in block collection must be sufficiently indented and end with a ] (check indentation, brackets and quotes around this place)`,
    `${f}: invalid (3 errors)`,
  ]);
});

test('validate: the same three problems in three files', () => {
  const files = ['yaml-syntax.sw.yaml', 'schema-error.sw.json', 'dangling.sw.yaml'].map((f) => path.join(FX, f));
  const r = swflow('validate', ...files);
  assert.equal(r.code, 1);
  const errors = r.out.split('\n').filter((l) => l.includes(': error: '));
  assert.equal(errors.length, 3, r.out);
  assert.match(errors[0], /yaml-syntax\.sw\.yaml:10:1: error: YAML syntax error: Flow sequence in block collection must be sufficiently indented and end with a \]/);
  assert.match(errors[1], /schema-error\.sw\.json:6:49: error: 'duration' must be a string$/);
  assert.match(errors[2], /dangling\.sw\.yaml:8:17: error: transition to unknown state 'Nowhere' \(known states: A\)$/);
});

test('validate: valid definitions, --json, --strict', () => {
  const ok = swflow('validate', path.join(FX, 'refs.sw.yaml'));
  assert.equal(ok.code, 0, ok.out + ok.err);
  assert.match(ok.out, /refs\.sw\.yaml: valid \(0\.8, id refs\)/);

  const json = swflow('validate', '--json', path.join(FX, 'dangling.sw.yaml'));
  assert.equal(json.code, 1);
  const parsed = JSON.parse(json.out);
  assert.equal(parsed[0].valid, false);
  assert.equal(parsed[0].problems[0].pointer, '/states/0/transition');
  assert.equal(parsed[0].problems[0].line, 8);

  const kogito = path.join(ROOT, '..', 'shared', 'corpus', 'kogito', 'helloworld.sw.json');
  assert.equal(swflow('validate', kogito).code, 0);
  const strict = swflow('validate', '--strict', kogito);
  assert.equal(strict.code, 1);
  assert.match(strict.out, /error: no 'specVersion'; read as a 0\.8 document \(strict\)/);
});

test('validate: an OpenAPI document named is said to be one, not a broken definition', () => {
  const f = path.join(ROOT, 'examples', 'myapis', 'greetingapis.json');
  const r = swflow('validate', f);
  assert.equal(r.code, 1);
  assert.deepEqual(r.out.trim().split('\n'), [
    `${f}:1:1: error: an OpenAPI document, not a workflow definition (a definition refers to it, from a function's operation, a call task or a data schema; validate that definition)`,
    `${f}: invalid (1 error)`,
  ]);
});

test('diagram: Mermaid stateDiagram-v2 with aliased names', () => {
  const r = swflow('diagram', path.join(FX, 'spaces.sw.json'));
  assert.equal(r.code, 0, r.err);
  assert.equal(
    r.out,
    [
      'stateDiagram-v2',
      '    state "Get Book-Status" as s0',
      `    state "Decide 'now'" as s1`,
      '    [*] --> s0',
      '    s0 --> s1',
      '    s1 --> s0 : on-loan',
      '    s1 --> [*] : default',
      '    note right of s0 : inject',
      '    note right of s1 : switch',
      '',
    ].join('\n'),
  );
});
