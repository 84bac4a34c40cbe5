/**
 * The 1.0 `fork` task (v1/tasks/fork.ts): branches that run together, `compete`, and a
 * failing branch cancelling the others.
 * Without a server: a document through the real loader, the real task pipeline over the fake
 * effects of ../fake-task-context.ts (Temporal on a virtual clock), the real jq engine.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FakeTaskContext } from '../fake-task-context';
import { http, rejects, get } from './support';

const forkDoc = (compete: boolean, branches: Record<string, unknown>[]) => ({ do: [{ race: { fork: { compete, branches } } }] });

test('fork: the branches run together; outputs in declaration order, not completion order', async () => {
  const ctx = await FakeTaskContext.of(forkDoc(false, [{ slow: get('slow') }, { fast: get('fast') }, { local: { set: { l: true } } }]));
  const finished: string[] = [];
  ctx.effects.activities['sw.http'] = http((fc) => {
    const uri = (fc.arguments as { endpoint: { uri: string } }).endpoint.uri;
    return ctx.effects.after(uri.endsWith('slow') ? 3000 : 1000, uri).then((v) => (finished.push(uri), v));
  });
  assert.deepEqual(await ctx.exec('race'), { output: ['https://svc.example/slow', 'https://svc.example/fast', { l: true }] });
  assert.deepEqual(finished, ['https://svc.example/fast', 'https://svc.example/slow']);
  // Both calls were issued before either completed (at time 0), slow first.
  assert.deepEqual(
    ctx.effects.of('activity').map((c) => [c.at, c.options.summary]),
    [
      [0, '/do/0/race/fork/branches/0/slow → GET https://svc.example/slow'],
      [0, '/do/0/race/fork/branches/1/fast → GET https://svc.example/fast'],
    ],
  );
  assert.equal(ctx.effects.elapsed, 3000);
});

test('fork compete: the first branch to complete wins, the others are cancelled', async () => {
  const ctx = await FakeTaskContext.of(forkDoc(true, [{ slow: get('slow') }, { fast: get('fast') }]));
  ctx.effects.activities['sw.http'] = http((fc) => {
    const uri = (fc.arguments as { endpoint: { uri: string } }).endpoint.uri;
    return ctx.effects.after(uri.endsWith('slow') ? 3000 : 1000, `${uri} won`);
  });
  assert.deepEqual(await ctx.exec('race'), { output: 'https://svc.example/fast won' });
  assert.deepEqual(
    ctx.effects.of('activity').map((c) => c.state),
    ['cancelled', 'completed'],
  );
  assert.equal(ctx.effects.elapsed, 1000);
});

test('fork: a failing branch fails the fork and cancels the others', async () => {
  const ctx = await FakeTaskContext.of(
    forkDoc(false, [{ waiting: { wait: { minutes: 1 } } }, { fail: { raise: { error: { type: 'https://example.com/boom', status: 418, title: 'Boom' } } } }]),
  );
  const e = await rejects(ctx.exec('race'));
  assert.deepEqual(e.problem, { type: 'https://example.com/boom', status: 418, title: 'Boom', instance: '/do/0/race/fork/branches/1/fail' });
  assert.deepEqual(
    ctx.effects.commands.map((c) => [c.kind, c.state]),
    [['timer', 'cancelled']],
  );
  assert.equal(ctx.effects.elapsed, 0);
});
