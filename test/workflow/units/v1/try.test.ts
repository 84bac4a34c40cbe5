/**
 * The 1.0 `try` task (v1/tasks/try.ts): `catch` filters, `catch.do` with `$error`, and
 * retries under durable timers.
 * Without a server: a document through the real loader, the real task pipeline over the fake
 * effects of ../fake-task-context.ts (Temporal on a virtual clock), the real jq engine.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FakeTaskContext } from '../fake-task-context';
import { COMM, http, serviceFailure, rejects, get } from './support';

const tryDoc = (c: Record<string, unknown>) => ({
  use: { retries: { twice: { delay: { seconds: 2 }, backoff: { exponential: {} }, limit: { attempt: { count: 2 } } } } },
  do: [{ guarded: { try: [{ getPet: get('pets/1') }], catch: c } }],
});

test('try/catch by type and status, when and exceptWhen; catch.do gets $error', async () => {
  const fail = (ctx: FakeTaskContext) => (ctx.effects.activities['sw.http'] = http(() => Promise.reject(serviceFailure('503', 'down'))));
  const caughtBy = async (c: Record<string, unknown>) => {
    const ctx = await FakeTaskContext.of(tryDoc(c));
    fail(ctx);
    return ctx.exec('guarded', { petId: 1 });
  };
  const recover = [{ recover: { set: '${ {recovered: $error.status, at: $error.instance, was: .petId} }' } }];
  assert.deepEqual(await caughtBy({ errors: { with: { type: COMM, status: 503 } }, do: recover }), { output: { recovered: 503, at: '/do/0/guarded/try/0/getPet', was: 1 } });
  // The pre-1.0 spelling of the type matches too; `as` renames $error.
  assert.deepEqual(await caughtBy({ errors: { with: { type: 'https://serverlessworkflow.io/dsl/errors/types/communication' } }, as: 'oops', do: [{ r: { set: '${ {d: $oops.detail} }' } }] }), { output: { d: 'down' } });
  assert.deepEqual(await caughtBy({ when: '${ .status == 503 }' }), { output: null });
  const notCaught = [{ errors: { with: { status: 404 } } }, { when: '${ .status == 404 }' }, { exceptWhen: '${ $error.status == 503 }' }, { errors: { with: { type: 'https://serverlessworkflow.io/spec/1.0.0/errors/timeout' } } }];
  for (const c of notCaught) {
    const e = await rejects(caughtBy(c));
    assert.deepEqual(e.problem, { type: COMM, status: 503, title: 'Communication Error', detail: 'down', instance: '/do/0/guarded/try/0/getPet' }, JSON.stringify(c));
  }
  // catch.then overrides the task's then
  assert.deepEqual(await caughtBy({ then: 'end' }), { output: null, then: 'end' });
});

test('try retry: durable timers between attempts (exponential 2 s, 4 s), the limit, then the error stands or catch.do runs', async () => {
  const ctx = await FakeTaskContext.of(tryDoc({ retry: 'twice' }));
  ctx.effects.activities['sw.http'] = http(() => Promise.reject(serviceFailure('503', 'down')));
  const e = await rejects(ctx.exec('guarded'));
  assert.equal(e.problem.status, 503);
  const retryAfter = '/do/0/guarded → retry %d after: Communication Error: down (status 503, at /do/0/guarded/try/0/getPet)';
  assert.deepEqual(
    ctx.effects.commands.map((c) => (c.kind === 'timer' ? ['timer', c.ms, c.summary, c.at] : [c.kind, c.state, c.at])),
    [
      ['activity', 'failed', 0],
      ['timer', 2000, retryAfter.replace('%d', '1'), 0],
      ['activity', 'failed', 2000],
      ['timer', 4000, retryAfter.replace('%d', '2'), 2000],
      ['activity', 'failed', 6000],
    ],
  );
  assert.deepEqual(ctx.retried, ['task.retried /do/0/guarded', 'task.retried /do/0/guarded']);

  const alt = await FakeTaskContext.of(tryDoc({ retry: 'twice', do: [{ fallback: { set: { from: 'cache' } } }] }));
  alt.effects.activities['sw.http'] = http(() => Promise.reject(serviceFailure('503', 'down')));
  assert.deepEqual(await alt.exec('guarded'), { output: { from: 'cache' } });
  assert.equal(alt.effects.of('activity').length, 3);

  const second = await FakeTaskContext.of(tryDoc({ retry: { delay: { milliseconds: 500 } } }));
  second.effects.activities['sw.http'] = http((_fc, attempt) => (attempt === 1 ? Promise.reject(serviceFailure('503', 'down')) : { pet: 1 }));
  assert.deepEqual(await second.exec('guarded'), { output: { pet: 1 } });
  assert.deepEqual(
    second.effects.commands.map((c) => [c.kind, c.state]),
    [
      ['activity', 'failed'],
      ['timer', 'fired'],
      ['activity', 'completed'],
    ],
  );
  assert.equal(second.effects.elapsed, 500);
});

test('try retry limit.attempt.duration: each attempt under its own timer', async () => {
  const ctx = await FakeTaskContext.of(tryDoc({ retry: { delay: { seconds: 1 }, limit: { attempt: { count: 1, duration: { seconds: 3 } } } }, do: [{ gaveUp: { set: '${ {why: $error.status} }' } }] }));
  ctx.effects.activities['sw.http'] = () => ctx.effects.after(10_000, 'late');
  assert.deepEqual(await ctx.exec('guarded'), { output: { why: 408 } });
  assert.deepEqual(
    ctx.effects.commands.map((c) => (c.kind === 'timer' ? ['timer', c.ms, c.state] : [c.kind, c.state])),
    [
      ['timer', 3000, 'fired'],
      ['activity', 'cancelled'],
      ['timer', 1000, 'fired'],
      ['timer', 3000, 'fired'],
      ['activity', 'cancelled'],
    ],
  );
  assert.equal(ctx.effects.elapsed, 7000);
});
