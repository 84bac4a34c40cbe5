/**
 * The 1.0 `raise` task (v1/tasks/raise.ts): the RFC 7807 problem at the task's reference.
 * Without a server: a document through the real loader, the real task pipeline over the fake
 * effects of ../fake-task-context.ts (Temporal on a virtual clock), the real jq engine.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FakeTaskContext } from '../fake-task-context';
import { rejects } from './support';

test('raise: the problem (use.errors by name or inline, expressions evaluated) at the task reference', async () => {
  const ctx = await FakeTaskContext.of({
    use: { errors: { notFound: { type: 'https://example.com/errors/not-found', status: 404, title: 'Not Found', detail: '${ "pet " + (.petId|tostring) + " not found" }' } } },
    do: [{ missing: { raise: { error: 'notFound' } } }, { inline: { raise: { error: { type: 'https://example.com/errors/bad', status: 400, instance: '/elsewhere' } } } }],
  });
  const e = await rejects(ctx.exec('missing', { petId: 7 }));
  assert.deepEqual(e.problem, { type: 'https://example.com/errors/not-found', status: 404, title: 'Not Found', detail: 'pet 7 not found', instance: '/do/0/missing' });
  const f = await rejects(ctx.exec('inline'));
  assert.deepEqual(f.problem, { type: 'https://example.com/errors/bad', status: 400, instance: '/elsewhere' });
});
