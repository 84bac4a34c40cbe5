/**
 * The defaults the 0.8 spec states that are a matter of normalization: a document that leaves
 * the property out loads (src/dsl) with the spec's default made explicit. One test per row of
 * docs/spec-defaults.md (the table names these tests); behaviour defaults are tested end to end
 * in test/workflow/spec-defaults.test.ts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadDefinition, formatFinding } from '../../src/dsl';
import type { WorkflowDef } from '../../src/common/model';

type Doc = Record<string, any>;

async function load(doc: Doc, opts: { baseDir?: string } = {}): Promise<WorkflowDef> {
  const { definition, problems } = await loadDefinition({ id: 'd', specVersion: '0.8', ...doc }, opts);
  assert.ok(definition, problems.map(formatFinding).join('\n'));
  return definition;
}

const inject = (name = 'S', rest: Doc = { end: true }): Doc => ({ name, type: 'inject', data: {}, ...rest });
const one = (state: Doc, extra: Doc = {}) => load({ start: state.name, states: [state], ...extra });
const state = <T = unknown>(d: WorkflowDef, i = 0) => d.states[i] as unknown as T & Record<string, any>;
const fnRest = { functions: [{ name: 'f', operation: 'api.json#op' }] };
const events = {
  events: [
    { name: 'In', type: 'in', source: 'test' },
    { name: 'Out', type: 'out', kind: 'produced' },
  ],
};

test('spec default: start — the first state of the states array', async () => {
  const d = await load({ states: [inject('First', { transition: 'Second' }), inject('Second')] });
  assert.equal(d.start.stateName, 'First');
});

test('spec default: expressionLang — jq', async () => {
  assert.equal((await one(inject())).expressionLang, 'jq');
});

test('spec default: keepActive — false', async () => {
  assert.equal((await one(inject())).keepActive, false);
});

test('spec default: autoRetries — false', async () => {
  assert.equal((await one(inject())).autoRetries, false);
});

test('spec default: timeouts — none defined, none made up ("unlimited")', async () => {
  const d = await one({ name: 'S', type: 'operation', actions: [{ functionRef: 'f' }], end: true }, fnRest);
  assert.equal(d.timeouts, undefined);
  assert.equal(d.states[0].timeouts, undefined);
});

test('spec default: workflowExecTimeout.interrupt — false, as the spec\'s table says ("Default is false")', async () => {
  assert.equal((await one(inject(), { timeouts: { workflowExecTimeout: 'PT1H' } })).timeouts?.workflowExecTimeout?.interrupt, false);
  assert.equal((await one(inject(), { timeouts: { workflowExecTimeout: { duration: 'PT1H' } } })).timeouts?.workflowExecTimeout?.interrupt, false);
  assert.equal((await one(inject(), { timeouts: { workflowExecTimeout: { duration: 'PT1H', interrupt: true } } })).timeouts?.workflowExecTimeout?.interrupt, true);
});

test('spec default: dataInputSchema.failOnValidationErrors — true (object without it, and the string form)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'swflow-defaults-'));
  writeFileSync(join(dir, 'input.json'), JSON.stringify({ type: 'object' }));
  assert.equal((await load({ states: [inject()], dataInputSchema: { schema: 'input.json' } }, { baseDir: dir })).dataInputSchema?.failOnValidationErrors, true);
  assert.equal((await load({ states: [inject()], dataInputSchema: 'input.json' }, { baseDir: dir })).dataInputSchema?.failOnValidationErrors, true);
});

test('spec default: function type — rest', async () => {
  const d = await one({ name: 'S', type: 'operation', actions: [{ functionRef: 'f' }], end: true }, fnRest);
  assert.equal(d.functions[0].type, 'rest');
});

test('spec default: event kind — consumed', async () => {
  const d = await one(inject(), { events: [{ name: 'E', type: 'e', source: 's' }] });
  assert.equal(d.events[0].kind, 'consumed');
});

test('spec default: event dataOnly — true', async () => {
  const d = await one(inject(), { events: [{ name: 'E', type: 'e', source: 's' }] });
  assert.equal(d.events[0].dataOnly, true);
});

test('spec default: auth scheme — basic', async () => {
  const d = await one(inject(), { auth: [{ name: 'A', properties: { username: 'u', password: 'p' } }] });
  assert.equal(d.auth[0].scheme, 'basic');
});

test('spec default: event state exclusive — true', async () => {
  const d = await one({ name: 'S', type: 'event', onEvents: [{ eventRefs: ['In'] }], end: true }, events);
  assert.equal(state<{ exclusive: boolean }>(d).exclusive, true);
});

test('spec default: actionMode — sequential (operation state and onEvents)', async () => {
  const op = await one({ name: 'S', type: 'operation', actions: [{ functionRef: 'f' }], end: true }, fnRest);
  assert.equal(state(op).actionMode, 'sequential');
  const ev = await one({ name: 'S', type: 'event', onEvents: [{ eventRefs: ['In'] }], end: true }, events);
  assert.equal(state(ev).onEvents[0].actionMode, 'sequential');
});

test('spec default: parallel completionType — allOf', async () => {
  const d = await one({ name: 'S', type: 'parallel', branches: [{ name: 'b', actions: [{ functionRef: 'f' }] }], end: true }, fnRest);
  assert.equal(state(d).completionType, 'allOf');
});

test('spec default: foreach mode — parallel; batchSize — unset (the whole collection)', async () => {
  const d = await one({ name: 'S', type: 'foreach', inputCollection: '${ .xs }', actions: [{ functionRef: 'f' }], end: true }, fnRest);
  assert.equal(state(d).mode, 'parallel');
  assert.equal(state(d).batchSize, undefined);
});

test('spec default: foreach iterationParam — one the runtime creates: item', async () => {
  const d = await one({ name: 'S', type: 'foreach', inputCollection: '${ .xs }', actions: [{ functionRef: 'f' }], end: true }, fnRest);
  assert.equal(state(d).iterationParam, 'item');
});

test('spec default: usedForCompensation — false, for every state type', async () => {
  const d = await load({
    ...fnRest,
    ...events,
    states: [
      inject('I', { transition: 'O' }),
      { name: 'O', type: 'operation', actions: [{ functionRef: 'f' }], transition: 'Z' },
      { name: 'Z', type: 'sleep', duration: 'PT1S', transition: 'W' },
      { name: 'W', type: 'switch', dataConditions: [{ condition: '${ true }', transition: 'E' }], defaultCondition: { transition: 'E' } },
      { name: 'E', type: 'event', onEvents: [{ eventRefs: ['In'] }], transition: 'P' },
      { name: 'P', type: 'parallel', branches: [{ name: 'b', actions: [{ functionRef: 'f' }] }], transition: 'F' },
      { name: 'F', type: 'foreach', inputCollection: '${ .xs }', actions: [{ functionRef: 'f' }], transition: 'C' },
      { name: 'C', type: 'callback', action: { functionRef: 'f' }, eventRef: 'In', end: true },
    ],
  });
  assert.deepEqual(
    d.states.map((s) => [s.type, s.usedForCompensation]),
    ['inject', 'operation', 'sleep', 'switch', 'event', 'parallel', 'foreach', 'callback'].map((t) => [t, false]),
  );
});

test('spec default: functionRef invoke — sync (string and object forms)', async () => {
  const d = await one({ name: 'S', type: 'operation', actions: [{ functionRef: 'f' }, { functionRef: { refName: 'f' } }], end: true }, fnRest);
  assert.deepEqual(state(d).actions.map((a: any) => a.functionRef.invoke), ['sync', 'sync']);
});

test('spec default: eventRef invoke — sync', async () => {
  const d = await one({ name: 'S', type: 'operation', actions: [{ eventRef: { produceEventRef: 'Out', consumeEventRef: 'In' } }], end: true }, events);
  assert.equal(state(d).actions[0].eventRef.invoke, 'sync');
});

test('spec default: subFlowRef invoke — sync; onParentComplete — terminate (string and object forms)', async () => {
  const d = await one({ name: 'S', type: 'operation', actions: [{ subFlowRef: 'child' }, { subFlowRef: { workflowId: 'child', invoke: 'async' } }], end: true });
  const refs = state(d).actions.map((a: any) => a.subFlowRef);
  assert.deepEqual(refs.map((r: any) => [r.invoke, r.onParentComplete]), [['sync', 'terminate'], ['async', 'terminate']]);
});

test('spec default: actionDataFilter useResults — true; toStateData — unset (the whole state data)', async () => {
  const d = await one({ name: 'S', type: 'operation', actions: [{ functionRef: 'f' }, { functionRef: 'f', actionDataFilter: { results: '${ .x }' } }], end: true }, fnRest);
  for (const a of state(d).actions) {
    assert.equal(a.actionDataFilter.useResults, true);
    assert.equal(a.actionDataFilter.toStateData, undefined);
  }
});

test('spec default: eventDataFilter useData — true; toStateData — unset (the whole state data)', async () => {
  const d = await one({ name: 'S', type: 'event', onEvents: [{ eventRefs: ['In'] }], end: true }, events);
  assert.equal(state(d).onEvents[0].eventDataFilter.useData, true);
  assert.equal(state(d).onEvents[0].eventDataFilter.toStateData, undefined);
});

test('spec default: stateDataFilter — unset (input and output not filtered)', async () => {
  assert.equal(state((await one(inject()))).stateDataFilter, undefined);
});

test('spec default: transition compensate — false', async () => {
  const d = await load({ states: [inject('A', { transition: 'B' }), inject('B')] });
  assert.deepEqual(d.states[0].transition, { nextState: 'B', produceEvents: [], compensate: false });
});

test('spec default: end: true — terminate false, compensate false, no produceEvents, no continueAs', async () => {
  assert.deepEqual((await one(inject())).states[0].end, { terminate: false, produceEvents: [], compensate: false });
});

test('spec default: action condition — unset (always performed)', async () => {
  const d = await one({ name: 'S', type: 'operation', actions: [{ functionRef: 'f' }], end: true }, fnRest);
  assert.equal(state(d).actions[0].condition, undefined);
});
