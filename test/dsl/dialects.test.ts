/** CWM 0.9 and the v0.1 draft turn into the same canonical model as their 0.8 equivalents. */
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parse } from 'yaml';
import { loadDefinition, type LoadResult } from '../../src/dsl';
import type { WorkflowDef } from '../../src/common/model';
import { SHARED } from './corpus-lib';

function strip(d: WorkflowDef | undefined): Omit<WorkflowDef, 'dialect' | 'specVersion'> {
  assert.ok(d, 'no definition');
  const { dialect: _d, specVersion: _s, ...rest } = d!;
  return rest;
}

function ok(r: LoadResult): WorkflowDef {
  assert.ok(r.definition, JSON.stringify(r.problems, null, 1));
  return r.definition!;
}

test('CWM 0.9: the conformance cwm-foreach definition equals its 0.8 form', async () => {
  const cwm = parse(fs.readFileSync(path.join(SHARED, 'conformance/cases/cwm-foreach.case.yaml'), 'utf8')).definition;
  const r = await loadDefinition(cwm);
  const def = ok(r);
  assert.deepEqual(r.problems, []);
  assert.equal(def.dialect, 'cwm-0.9');
  assert.equal(def.specVersion, '0.9');
  assert.deepEqual(def.functions, [{ name: 'HelloWorld', operation: 'HelloWorld', type: 'custom', metadata: { worker: 'defaultWorker' } }]);

  const v08 = JSON.parse(JSON.stringify(cwm));
  v08.specVersion = '0.8';
  v08.functions[0].type = 'custom';
  v08.states[0].transition = 'SayHelloToEveryone';
  v08.states[1].end = { terminate: true };
  const r08 = await loadDefinition(v08);
  assert.equal(ok(r08).dialect, '0.8');
  assert.deepEqual(strip(def), strip(r08.definition));
});

test('CWM 0.9: name as id, adapter.activity custom functions, maxAttempts 0, errors by description, string terminate', async () => {
  const cwm = {
    name: 'DeviceSync',
    version: '1.0',
    specVersion: '0.9',
    start: 'sync',
    retries: [{ name: 'Forever', delay: 'PT30S', maxAttempts: 0, multiplier: 1.5 }],
    errors: [{ name: 'Busy', code: 0, description: 'Device is busy' }],
    functions: [{ name: 'NSO.SyncFrom', operation: 'NSO.device_SyncFrom', metadata: { worker: 'nsoWorker' } }],
    states: [
      {
        name: 'sync',
        type: 'operation',
        actions: [{ name: 'sync', functionRef: { refName: 'NSO.SyncFrom', arguments: { input: { device: '${ .device }' } } }, retryRef: 'Forever' }],
        onErrors: [{ errorRef: 'Busy', end: { terminate: 'true', compensate: 'false' } }],
        end: { terminate: 'true' },
      },
    ],
  };
  const def = ok(await loadDefinition(cwm));
  assert.equal(def.id, 'DeviceSync');
  assert.deepEqual(def.retries, [{ name: 'Forever', delay: 'PT30S', multiplier: 1.5 }]); // maxAttempts undefined = unlimited
  assert.deepEqual(def.errors, [{ name: 'Busy', code: '0', description: 'Device is busy' }]);
  assert.deepEqual(def.functions[0], { name: 'NSO.SyncFrom', operation: 'NSO.device_SyncFrom', type: 'custom', metadata: { worker: 'nsoWorker' } });
  assert.deepEqual(def.states[0].onErrors, [{ errorRefs: ['Busy'], end: { terminate: true, produceEvents: [], compensate: false } }]);
  assert.deepEqual(def.states[0].end, { terminate: true, produceEvents: [], compensate: false });
});

test('CWM 0.9: http and openapi function types; unclear transition keys are errors', async () => {
  const def = ok(
    await loadDefinition({
      name: 'curl',
      specVersion: '0.9',
      start: 'get',
      functions: [
        { name: 'search', type: 'http', operation: { method: 'GET', uri: 'https://example.com/search?q={query}' } },
        { name: 'pet', type: 'openapi', operation: 'specs/petstore.yaml#getPet' },
      ],
      states: [{ name: 'get', type: 'operation', actions: [{ functionRef: { refName: 'search', arguments: { query: '${ .q }' } } }, { functionRef: 'pet' }], end: true }],
    }),
  );
  assert.deepEqual(def.functions, [
    { name: 'search', operation: 'https://example.com/search?q={query}', type: 'http', metadata: {}, http: { method: 'GET', uri: 'https://example.com/search?q={query}' } },
    { name: 'pet', operation: 'specs/petstore.yaml#getPet', type: 'rest', metadata: {} },
  ]);
  // The CWM manual's own typo: {"nextStat": ...} has no clear meaning.
  const r = await loadDefinition({ id: 'x', specVersion: '0.9', start: 'a', states: [{ name: 'a', type: 'inject', data: {}, transition: { nextStat: 'b' } }, { name: 'b', type: 'inject', data: {}, end: true }] });
  assert.equal(r.definition, undefined);
  assert.ok(r.problems.some((p) => p.message === "unknown property 'nextStat'"), JSON.stringify(r.problems));
});

const V01 = {
  id: 'greeter',
  'trigger-defs': [{ name: 'GREET-EVENT', source: 'greeter', type: 'greet.request', 'correlation-token': 'greetingid' }],
  states: [
    {
      name: 'WAIT',
      type: 'EVENT',
      start: true,
      events: [{ 'event-expression': 'GREET-EVENT', 'action-mode': 'SEQUENTIAL', actions: [{ function: 'hello' }], 'next-state': 'CHECK' }],
    },
    {
      name: 'CHECK',
      type: 'SWITCH',
      choices: [
        { path: '$.payload.lang', value: 'fr', operator: 'StrEQ', 'next-state': 'FRENCH' },
        { And: [{ path: '$.age', value: 18, operator: 'GTEQ' }, { Not: { path: '$.age', value: 65, operator: 'GT' } }], 'next-state': 'PAUSE' },
      ],
      default: 'DONE',
    },
    {
      name: 'FRENCH',
      type: 'OPERATION',
      'action-mode': 'Sequential',
      InputPath: '$.payload',
      ResultPath: '$.result',
      OutputPath: '$.result',
      actions: [{ function: 'bonjour', timeout: 30, retry: [{ match: 'SYS.Timeout', 'retry-interval': 5, 'max-retry': 2, 'next-state': 'DONE' }] }],
      'next-state': 'DONE',
    },
    { name: 'PAUSE', type: 'DELAY', 'time-delay': 10, 'next-state': 'BOTH' },
    {
      name: 'BOTH',
      type: 'PARALLEL',
      branches: [
        { name: 'left', states: [{ name: 'L1', type: 'OPERATION', start: true, actions: [{ function: 'hello' }], 'next-state': 'L2' }, { name: 'L2', type: 'OPERATION', actions: [{ function: 'bonjour' }] }] },
        { name: 'right', states: [{ name: 'R1', type: 'OPERATION', start: true, actions: [{ function: 'hello' }] }] },
      ],
      'next-state': 'DONE',
    },
    { name: 'DONE', type: 'END', status: 'SUCCESS' },
  ],
};

const V01_AS_08 = {
  id: 'greeter',
  specVersion: '0.8',
  start: 'WAIT',
  events: [{ name: 'GREET-EVENT', source: 'greeter', type: 'greet.request', kind: 'consumed', correlation: [{ contextAttributeName: 'greetingid' }] }],
  functions: [
    { name: 'hello', operation: 'hello', type: 'custom' },
    { name: 'bonjour', operation: 'bonjour', type: 'custom' },
  ],
  errors: [{ name: 'SYS.Timeout', code: 'SYS.Timeout' }],
  retries: [{ name: 'FRENCH-bonjour-retry', delay: 'PT5S', maxAttempts: 3 }],
  states: [
    { name: 'WAIT', type: 'event', onEvents: [{ eventRefs: ['GREET-EVENT'], actionMode: 'sequential', actions: [{ name: 'hello', functionRef: 'hello' }] }], transition: 'CHECK' },
    {
      name: 'CHECK',
      type: 'switch',
      dataConditions: [
        { condition: '${ .payload.lang == "fr" }', transition: 'FRENCH' },
        { condition: '${ (.age >= 18) and ((.age > 65) | not) }', transition: 'PAUSE' },
      ],
      defaultCondition: { end: true },
    },
    {
      name: 'FRENCH',
      type: 'operation',
      actionMode: 'sequential',
      stateDataFilter: { input: '${ .payload }', output: '${ .result }' },
      timeouts: { actionExecTimeout: 'PT30S' },
      actions: [{ name: 'bonjour', functionRef: 'bonjour', retryRef: 'FRENCH-bonjour-retry', retryableErrors: ['SYS.Timeout'], actionDataFilter: { toStateData: '${ .result }' } }],
      onErrors: [{ errorRef: 'SYS.Timeout', end: true }],
      end: true,
    },
    { name: 'PAUSE', type: 'sleep', duration: 'PT10S', transition: 'BOTH' },
    {
      name: 'BOTH',
      type: 'parallel',
      branches: [
        { name: 'left', actions: [{ name: 'hello', functionRef: 'hello' }, { name: 'bonjour', functionRef: 'bonjour' }] },
        { name: 'right', actions: [{ name: 'hello', functionRef: 'hello' }] },
      ],
      end: true,
    },
  ],
};

test('v0.1 draft: translated into the same model as its 0.8 equivalent', async () => {
  const r = await loadDefinition(V01);
  const def = ok(r);
  assert.deepEqual(r.problems, []);
  assert.equal(def.dialect, 'v0.1');
  assert.equal(def.specVersion, '0.1');
  const r08 = await loadDefinition(V01_AS_08);
  assert.deepEqual(r08.problems, []);
  assert.deepEqual(strip(def), strip(r08.definition));
});

test('v0.1 draft: what cannot be expressed is an error naming it', async () => {
  const bad = JSON.parse(JSON.stringify(V01));
  bad.states[5].status = 'FAILURE';
  bad.states[2].actions[0].retry[0].match = 'SYS.MatchAny';
  bad.states[4].branches[0].states.push({ name: 'L3', type: 'SWITCH', choices: [] });
  bad['trigger-defs'][0] = { name: 'GREET-EVENT', source: 'greeter', eventID: 'id-1' };
  const r = await loadDefinition(JSON.stringify(bad), { source: 'v01.json' });
  assert.equal(r.definition, undefined);
  const msgs = r.problems.map((p) => p.message);
  for (const m of [
    "trigger 'GREET-EVENT' has no CloudEvent 'type'",
    'SYS.MatchAny cannot be expressed',
    "PARALLEL branch 'left': a SWITCH state inside a branch cannot be expressed",
    'END state \'DONE\' has status "FAILURE"',
  ]) assert.ok(msgs.includes(m), `missing ${JSON.stringify(m)} in ${JSON.stringify(msgs)}`);
  // Located in the v0.1 text.
  assert.ok(r.problems.every((p) => p.file === 'v01.json' && p.line !== undefined));
});
