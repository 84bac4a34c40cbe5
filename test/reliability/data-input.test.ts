/**
 * Bad runtime input: a 0.8-family workflow data input that is not a JSON object fails the run at
 * once with a message saying what was given (feature `object-data-input`); `swflow run` refuses it
 * before starting anything. A 1.0 workflow's input may be any JSON value (its `input.schema` says
 * what it accepts), so 1.0 runs are unchanged.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WorkflowFailedError } from '@temporalio/client';
import { formatFinding, loadAnyDefinition } from '../../src/dsl';
import type { WorkflowDef } from '../../src/common/model';
import { startDevEnv } from '../helpers/temporal';
import { runSwflow } from '../helpers/cli';
import { def, harness, type Harness } from '../workflow/helpers';

let h: Harness;
before(async () => {
  h = await harness(await startDevEnv());
});
after(async () => {
  await h?.close();
  await h?.env.teardown();
});

const greet = () =>
  def({ id: 'objinput', start: 'A', states: [{ name: 'A', type: 'inject', data: { ok: true }, end: true }] });

test('0.8: a string, an array, a number or a boolean as data input fails the run at once, saying what was given', async () => {
  h.reset();
  const cases: [unknown, RegExp][] = [
    ['text', /given a string \("text"\)/],
    [[1, 2], /given an array \(\[1,2\]\)/],
    [42, /given a number \(42\)/],
    [true, /given a boolean \(true\)/],
  ];
  for (const [input, given] of cases) {
    const handle = await h.start(greet(), input as any);
    const err = await handle.result().then(
      () => assert.fail(`input ${JSON.stringify(input)} was accepted`),
      (e: unknown) => e,
    );
    assert.ok(err instanceof WorkflowFailedError);
    const cause = (err as WorkflowFailedError).cause as any;
    assert.equal(cause?.type, 'DataInputInvalid');
    assert.match(cause.message, /the workflow data input must be a JSON object/);
    assert.match(cause.message, given);
    // at once: no state was entered
    const history = await handle.fetchHistory();
    const summaries = JSON.stringify(history.events ?? []);
    assert.doesNotMatch(summaries, /"ok":true/);
  }
  await h.saveHistory(h.lastWorkflowId!, 'interpreter-object-data-input');
});

test('0.8: an object, or no input at all (null), still runs', async () => {
  h.reset();
  assert.deepEqual(await h.run(greet(), { a: 1 }), { a: 1, ok: true });
  assert.deepEqual(await h.run(greet(), null), { ok: true });
});

test('1.0: any JSON value is a valid workflow input', async () => {
  const { definition, problems } = await loadAnyDefinition(
    {
      document: { dsl: '1.0.0', namespace: 'test', name: 'anyinput', version: '0.1.0' },
      do: [{ echo: { set: { got: '${ . }' } } }],
    },
    { source: 'test' },
  );
  assert.ok(definition, problems.map(formatFinding).join('; '));
  const d = definition as unknown as WorkflowDef;
  assert.deepEqual(await h.run(d, 'text'), { got: 'text' });
  assert.deepEqual(await h.run(d, [1, 2]), { got: [1, 2] });
});

test('swflow run refuses a non-object --input of a 0.8 definition before starting anything', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'swflow-input-'));
  const file = join(dir, 'hello.sw.json');
  writeFileSync(file, JSON.stringify({ id: 'hello', specVersion: '0.8', start: 'A', states: [{ name: 'A', type: 'inject', data: { ok: true }, end: true }] }));
  // An unreachable address: the refusal must come before any connection.
  const r = await runSwflow('127.0.0.1:1', ['run', file, '--input', '"text"']);
  assert.equal(r.code, 1, r.err);
  assert.match(r.err, /--input: the workflow data input must be a JSON object .*given a string \("text"\); nothing was run\./);
  assert.doesNotMatch(r.err, /\n\s+at /, 'no stack trace');
});
