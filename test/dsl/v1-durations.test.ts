/**
 * `swflow validate` and 1.0 durations: every duration the schema allows may be a runtime
 * expression (evaluated when the run needs it, v1/durations.ts); a literal that is not a duration
 * swflow can time is an error located `file:line:col`.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { formatFinding, loadAnyDefinition, loadAnyDefinitionFile } from '../../src/dsl';

const FIXTURES = join(__dirname, 'fixtures', 'v1');

test('durations written as runtime expressions validate everywhere the schema allows a duration', async () => {
  const r = await loadAnyDefinitionFile(join(FIXTURES, 'duration-expressions.sw.yaml'));
  assert.deepEqual(r.problems.map(formatFinding), []);
  assert.ok(r.definition);
});

test('literal durations that are not durations, or that swflow cannot time, are located errors; so is an expression that does not compile', async () => {
  const file = join(FIXTURES, 'duration-literals-broken.sw.yaml');
  const r = await loadAnyDefinitionFile(file);
  assert.equal(r.definition, undefined);
  const text = r.problems.map(formatFinding).join('\n');
  const notADuration = `is not a duration: write an ISO 8601 duration \\("PT30S", "P1DT2H"\\), an inline one \\(\\{ minutes: 5 \\}\\), or a runtime expression`;
  for (const re of [
    new RegExp(`duration-literals-broken\\.sw\\.yaml:3:19: error: 'after' ${notADuration}`),
    /duration-literals-broken\.sw\.yaml:6:22: error: "P1Y" uses years or months, which have no fixed length/,
    /duration-literals-broken\.sw\.yaml:9:13: error: "P2M" uses years or months/,
    new RegExp(`duration-literals-broken\\.sw\\.yaml:10:25: error: 'after' ${notADuration}`),
    new RegExp(`duration-literals-broken\\.sw\\.yaml:16:18: error: 'delay' ${notADuration}`),
    /duration-literals-broken\.sw\.yaml:17:30: error: "P1Y2M" uses years or months/,
    /duration-literals-broken\.sw\.yaml:17:58: error: invalid runtime expression/,
    // a jitter's `from` is a duration: checked when it is an expression, not taken as bare jq
    /duration-literals-broken\.sw\.yaml:18:27: error: invalid runtime expression/,
  ]) {
    assert.match(text, re);
  }
  assert.equal(r.problems.length, 8, text);
});

test('a jitter written as a literal duration is not read as jq; schedule.every as an expression is a warning', async () => {
  const doc = (extra: Record<string, unknown>) => ({
    document: { dsl: '1.0.3', namespace: 'tests', name: 'd', version: '0.1.0' },
    do: [{ t: { try: [{ s: { wait: 'PT1S' } }], catch: { retry: { delay: 'PT1S', jitter: { from: 'PT1S', to: 'PT2S' } } } } }],
    ...extra,
  });
  assert.deepEqual((await loadAnyDefinition(doc({}))).problems, []);
  const r = await loadAnyDefinition(doc({ schedule: { every: '${ "PT1H" }' } }));
  assert.ok(r.definition);
  assert.deepEqual(
    r.problems.map((p) => [p.severity, p.pointer, p.message]),
    [['warning', '/schedule/every', "'schedule.every' as a runtime expression is not supported: the interval of the Temporal Schedule is fixed when the schedule is made, before any run has data to evaluate it on; write an ISO 8601 duration or an inline one"]],
  );
});
