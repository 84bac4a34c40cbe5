/**
 * A graphql action's `selectionSet` may hold expressions ("Expressions must be evaluated before
 * executing the operation", spec 0.8): the interpreter evaluates them (feature
 * `selection-set-expressions`) and the call carries the resulting text. Mocked adapter, real dev
 * server; the history is kept as a replay fixture.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { WorkflowFailedError } from '@temporalio/client';
import { startDevEnv } from '../helpers/temporal';
import { def, harness, type Harness } from './helpers';

let h: Harness;
before(async () => {
  h = await harness(await startDevEnv());
});
after(async () => {
  await h?.close();
  await h?.env.teardown();
});

const petQuery = (selectionSet: string) =>
  def({
    id: 'graphqlselection',
    start: 'Get',
    functions: [{ name: 'getOnePet', type: 'graphql', operation: 'https://example.com/pets/graphql#query#pet' }],
    states: [{ name: 'Get', type: 'operation', actions: [{ name: 'get', functionRef: { refName: 'getOnePet', arguments: { id: '${ .petId }' }, selectionSet } }], end: true }],
  });

test("the spec's example: a selection set's expressions are evaluated from the state data before the call", async () => {
  h.reset();
  h.mocks.getOnePet = (args, call) => ({ pet: { id: (args as { id: number }).id, asked: call.selectionSet ?? null } });
  const out = await h.run(petQuery('{ id, name, age(useDogYears: ${ .isPetADog }) { dateOfBirth, years }, nick(lang: "${ .lang }") }'), { petId: 42, isPetADog: true, lang: 'fr' });
  const asked = '{ id, name, age(useDogYears: true) { dateOfBirth, years }, nick(lang: "fr") }';
  assert.deepEqual(out, { petId: 42, isPetADog: true, lang: 'fr', pet: { id: 42, asked } });
  assert.equal(h.calls[0].activityType, 'sw.graphql');
  assert.equal(h.calls[0].call.selectionSet, asked);
  await h.saveHistory(h.lastWorkflowId!, 'interpreter-graphql-selection-set');
});

test('a selection set without expressions travels as written', async () => {
  h.reset();
  h.mocks.getOnePet = () => ({ pet: null });
  await h.run(petQuery('{ id, name, favoriteTreat { id } }'), { petId: 1 });
  assert.equal(h.calls[0].call.selectionSet, '{ id, name, favoriteTreat { id } }');
});

test('a selection set expression that fails is an expression error naming the state and action', async () => {
  h.reset();
  h.mocks.getOnePet = () => ({ pet: null });
  await assert.rejects(h.run(petQuery('{ id, age(useDogYears: ${ .flags | error("no flags") }) { years } }'), { petId: 1 }), (e: unknown) => {
    assert.ok(e instanceof WorkflowFailedError);
    assert.match(String(e.cause?.message), /state "Get", action "get" selectionSet\) failed: no flags/);
    return true;
  });
  assert.equal(h.calls.length, 0, 'nothing was called');
});
