/**
 * The 0.8 callback state (v08/states/callback.ts): the action, then the callback event.
 * Without a server: a definition through the real loader, the real state pipeline over the
 * fake effects of ../fake-context.ts (Temporal on a virtual clock), the real jq engine; data in,
 * and out the data, the commands (types, inputs, summaries, times) and the transition chosen.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { classify, SwTimeoutError } from '../../../../src/workflow/v08/errors';
import { definition, FakeRun } from '../fake-context';
import { callOptions, functions, cloudEvent } from './support';

test('callback: the action runs, then the callback event is awaited (eventDataFilter); none within eventTimeout is a timeout error', async () => {
  const def = await definition({
    functions,
    events: [{ name: 'Done', type: 'com.x.done', source: 'svc', kind: 'consumed' }],
    states: [
      {
        name: 'Cb',
        type: 'callback',
        action: { name: 'start', functionRef: { refName: 'quote', arguments: { job: '${ .job }' } }, actionDataFilter: { results: '${ .ticket }', toStateData: '${ .ticket }' } },
        eventRef: 'Done',
        eventDataFilter: { data: '${ .result }', toStateData: '${ .outcome }' },
        timeouts: { eventTimeout: 'PT5M' },
        end: true,
      },
    ],
  });
  const run = new FakeRun(def);
  run.effects.activities['pricing.quote'] = () => run.effects.after(200, { ticket: 'T-1' });
  run.deliver(60_000, cloudEvent('com.x.done', { result: { ok: true }, noise: 1 }, { source: 'svc' }));
  const out = await run.exec('Cb', { job: 'j' });
  assert.deepEqual(out.data, { job: 'j', ticket: 'T-1', outcome: { ok: true } });
  assert.deepEqual(run.effects.issued(), [
    { kind: 'activity', type: 'pricing.quote', args: [{ job: 'j' }], options: callOptions('Cb › start → quote') },
    { kind: 'wait', ms: 300_000, summary: 'Cb → wait for Done' },
  ]);
  assert.equal(run.effects.commands[1].at, 200);

  const late = new FakeRun(def);
  late.effects.activities['pricing.quote'] = () => ({ ticket: 'T-2' });
  await assert.rejects(late.exec('Cb', { job: 'k' }), (e: unknown) => e instanceof SwTimeoutError && e.message === 'state "Cb" received no Done event within PT5M (eventTimeout)');
  assert.equal(classify(await late.exec('Cb', {}).catch((e) => e)).code, 'timeout');
});
