/** Each validation rule: a broken document and the exact message (and its location). */
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { loadDefinition, type Finding } from '../../src/dsl';

type Doc = Record<string, any>;

const base = (states: Doc[], extra: Doc = {}): Doc => ({ id: 't', specVersion: '0.8', start: states[0]?.name, states, ...extra });
const inject = (name: string, rest: Doc = { end: true }): Doc => ({ name, type: 'inject', data: {}, ...rest });
const op = (name: string, actions: Doc[], rest: Doc = { end: true }): Doc => ({ name, type: 'operation', actions, ...rest });

async function errors(doc: Doc | string): Promise<Finding[]> {
  const r = await loadDefinition(doc);
  return r.problems.filter((p) => p.severity === 'error');
}

async function expectError(doc: Doc | string, message: string, pointer?: string): Promise<Finding> {
  const errs = await errors(doc);
  const hit = errs.find((p) => p.message === message);
  assert.ok(hit, `expected error ${JSON.stringify(message)}, got:\n${errs.map((e) => `${e.pointer}: ${e.message}`).join('\n')}`);
  if (pointer !== undefined) assert.equal(hit!.pointer, pointer);
  return hit!;
}

test('a valid document has no problems and yields a definition', async () => {
  const r = await loadDefinition(base([inject('A', { transition: 'B' }), inject('B')]));
  assert.deepEqual(r.problems, []);
  assert.equal(r.definition?.states[0].transition?.nextState, 'B');
});

test('unique state names', async () => {
  await expectError(base([inject('A', { transition: 'A' }), inject('A')]), "duplicate state name 'A'", '/states/1/name');
});

test('start state exists', async () => {
  await expectError({ ...base([inject('A')]), start: 'Nope' }, "start state 'Nope' does not exist", '/start');
});

test('transition resolves (conformance case invalid-transition: names Nowhere), with line:col', async () => {
  const yaml = "id: broken\nspecVersion: '0.8'\nstart: A\nstates:\n  - name: A\n    type: inject\n    data: {}\n    transition: Nowhere\n";
  const p = await expectError(yaml, "transition to unknown state 'Nowhere'", '/states/0/transition');
  assert.equal(p.line, 8);
  assert.equal(p.col, 17);
  assert.equal(p.hint, 'known states: A');
});

test('object transition and condition transitions resolve', async () => {
  await expectError(base([inject('A', { transition: { nextState: 'X' } })]), "transition to unknown state 'X'", '/states/0/transition/nextState');
  const sw = { name: 'S', type: 'switch', dataConditions: [{ condition: '${ true }', transition: 'Y' }], defaultCondition: { end: true } };
  await expectError(base([sw]), "transition to unknown state 'Y'", '/states/0/dataConditions/0/transition');
});

test('functionRef resolves', async () => {
  await expectError(base([op('A', [{ functionRef: 'nope' }])], { functions: [{ name: 'f', operation: 'http://x/api.json#f' }] }), "action refers to unknown function 'nope'", '/states/0/actions/0/functionRef');
});

test('retryRef resolves', async () => {
  const fns = { functions: [{ name: 'f', operation: 'http://x/a.json#f' }] };
  await expectError(base([op('A', [{ functionRef: 'f', retryRef: 'r' }])], fns), "action refers to unknown retry 'r'", '/states/0/actions/0/retryRef');
});

test('errorRef / errorRefs resolve', async () => {
  const fns = { functions: [{ name: 'f', operation: 'http://x/a.json#f' }], errors: [{ name: 'E1', code: '500' }] };
  await expectError(base([op('A', [{ functionRef: 'f' }], { end: true, onErrors: [{ errorRef: 'E2', end: true }] })], fns), "error handler refers to unknown error 'E2'", '/states/0/onErrors/0/errorRef');
  await expectError(base([op('A', [{ functionRef: 'f' }], { end: true, onErrors: [{ errorRefs: ['E1', 'E3'], end: true }] })], fns), "error handler refers to unknown error 'E3'", '/states/0/onErrors/0/errorRefs/1');
});

test('eventRef resolves and its kind fits', async () => {
  const events = { events: [{ name: 'In', type: 't.in', source: 's' }, { name: 'Out', type: 't.out', kind: 'produced' }] };
  await expectError(base([{ name: 'E', type: 'event', onEvents: [{ eventRefs: ['Nope'] }], end: true }], events), "refers to unknown event 'Nope'", '/states/0/onEvents/0/eventRefs/0');
  await expectError(base([{ name: 'E', type: 'event', onEvents: [{ eventRefs: ['Out'] }], end: true }], events), "event 'Out' is produced but is used here as a consumed event");
  await expectError(base([inject('A', { end: { produceEvents: [{ eventRef: 'In' }] } })], events), "event 'In' is consumed but is used here as a produced event", '/states/0/end/produceEvents/0/eventRef');
});

test('subFlowRef resolves when the known workflows are given', async () => {
  const r = await loadDefinition(base([op('A', [{ subFlowRef: 'child' }])]), { knownWorkflows: ['other'] });
  assert.equal(r.problems[0]?.message, "subflow 'child' is not a known workflow");
});

test('switch has a defaultCondition', async () => {
  const sw = { name: 'S', type: 'switch', dataConditions: [{ condition: '${ true }', end: true }] };
  await expectError(base([sw]), "switch state 'S' has no defaultCondition", '/states/0');
});

test('switch never ends by itself', async () => {
  const sw = { name: 'S', type: 'switch', dataConditions: [{ condition: '${ true }', end: true }], defaultCondition: { end: true }, end: true };
  await expectError(base([sw]), "switch state 'S' cannot have its own end", '/states/0/end');
});

test('transition xor end', async () => {
  await expectError(base([inject('A', { end: true, transition: 'A' })]), "states[0] must not have both 'end' and 'transition'", '/states/0');
  await expectError(base([inject('A', {})]), "states[0] must have 'end' or 'transition'", '/states/0');
});

test('compensation rules', async () => {
  const fns = { functions: [{ name: 'f', operation: 'http://x/a.json#f' }] };
  // compensatedBy must resolve
  await expectError(base([op('A', [{ functionRef: 'f' }], { end: true, compensatedBy: 'Undo' })], fns), "compensatedBy refers to unknown state 'Undo'", '/states/0/compensatedBy');
  // target must be usedForCompensation
  await expectError(base([op('A', [{ functionRef: 'f' }], { end: true, compensatedBy: 'B' }), op('B', [{ functionRef: 'f' }])], fns), "state 'B' compensates 'A' but is not marked usedForCompensation: true");
  // compensation states are not reachable by transitions
  await expectError(
    base([op('A', [{ functionRef: 'f' }], { transition: 'U' }), op('U', [{ functionRef: 'f' }], { usedForCompensation: true })], fns),
    "state 'A' transitions to 'U', which is used for compensation",
    '/states/0/transition',
  );
  // ... nor the start
  await expectError(base([op('U', [{ functionRef: 'f' }], { usedForCompensation: true })], fns), "the start state 'U' is marked usedForCompensation", '/start');
  // not recursive
  await expectError(
    base([op('A', [{ functionRef: 'f' }], { end: true, compensatedBy: 'U' }), op('U', [{ functionRef: 'f' }], { usedForCompensation: true, compensatedBy: 'V' }), op('V', [{ functionRef: 'f' }], { usedForCompensation: true })], fns),
    "compensation state 'U' cannot itself be compensated (compensation is not recursive)",
  );
  // compensation states transition only to compensation states
  await expectError(
    base([op('A', [{ functionRef: 'f' }], { end: true, compensatedBy: 'U' }), op('U', [{ functionRef: 'f' }], { usedForCompensation: true, transition: 'A' })], fns),
    "compensation state 'U' transitions to 'A', which is not used for compensation",
  );
  // not an event state
  await expectError(
    base([op('A', [{ functionRef: 'f' }], { end: true, compensatedBy: 'U' }), { name: 'U', type: 'event', usedForCompensation: true, onEvents: [{ eventRefs: ['In'] }] }], { ...fns, events: [{ name: 'In', type: 't', source: 's' }] }),
    "state 'U' is an event state and cannot be used for compensation",
  );
});

test('runBefore rules', async () => {
  const t = (rb: string) => ({ timeouts: { workflowExecTimeout: { duration: 'PT1H', runBefore: rb } } });
  await expectError(base([inject('A')], t('Report')), "runBefore refers to unknown state 'Report'", '/timeouts/workflowExecTimeout/runBefore');
  await expectError(base([inject('A', { transition: 'R' }), inject('R')], t('R')), "state 'A' transitions to 'R', which runs only before the workflow times out (runBefore)");
  await expectError(base([inject('A'), inject('R', { transition: 'R2' }), inject('R2', { transition: 'R' })], t('R')), "the runBefore flow starting at 'R' never ends");
  const ok = await loadDefinition(base([inject('A'), inject('R')], t('R')));
  assert.deepEqual(ok.problems, []);
});

test('exclusive, completionType/numCompleted, batchSize', async () => {
  const fns = { functions: [{ name: 'f', operation: 'http://x/a.json#f' }] };
  const branches = [
    { name: 'b1', actions: [{ functionRef: 'f' }] },
    { name: 'b2', actions: [{ functionRef: 'f' }] },
  ];
  await expectError(base([{ name: 'P', type: 'parallel', branches, completionType: 'atLeast', end: true }], fns), "parallel state 'P' has completionType 'atLeast' but no numCompleted");
  await expectError(base([{ name: 'P', type: 'parallel', branches, completionType: 'atLeast', numCompleted: 3, end: true }], fns), 'numCompleted 3 is more than the 2 branches', '/states/0/numCompleted');
  await expectError(base([{ name: 'P', type: 'parallel', branches, completionType: 'atLeast', numCompleted: 0, end: true }], fns), 'numCompleted must be a whole number >= 1 (got 0)');
  await expectError(base([{ name: 'F', type: 'foreach', inputCollection: '${ .xs }', batchSize: 0, actions: [{ functionRef: 'f' }], end: true }], fns), 'batchSize must be a whole number >= 1 (got 0)', '/states/0/batchSize');
  await expectError(base([{ name: 'E', type: 'event', exclusive: 'maybe', onEvents: [{ eventRefs: ['In'] }], end: true }], { events: [{ name: 'In', type: 't', source: 's' }] }), "'exclusive' must be a boolean");
});

test('ISO 8601 durations parse', async () => {
  await expectError(base([{ name: 'S', type: 'sleep', duration: 'PT5X', end: true }]), 'invalid duration: "PT5X" is not an ISO 8601 duration (expected e.g. "PT30S", "PT1H30M", "P1D")', '/states/0/duration');
  await expectError(base([{ name: 'S', type: 'sleep', duration: 'P1M', end: true }]), 'invalid duration: "P1M" uses years or months, which have no fixed length; use days (D) or weeks (W)');
  await expectError(base([inject('A')], { timeouts: { workflowExecTimeout: 'soon' } }), 'invalid duration: "soon" is not an ISO 8601 duration (expected e.g. "PT30S", "PT1H30M", "P1D")', '/timeouts/workflowExecTimeout');
});

test('every jq expression compiles (expression and place reported)', async () => {
  const errs = await errors(base([inject('A', { end: true, stateDataFilter: { output: '${ .a | }' } })]));
  assert.equal(errs.length, 1);
  assert.equal(errs[0].pointer, '/states/0/stateDataFilter/output');
  assert.match(errs[0].message, /^expression does not compile: .+: "\$\{ \.a \| \}"$/);
});

test('fn: references name expression functions', async () => {
  const fns = { functions: [{ name: 'isAdult', type: 'expression', operation: '.age >= 18' }, { name: 'rest', operation: 'http://x/a.json#f' }] };
  const sw = (c: string) => ({ name: 'S', type: 'switch', dataConditions: [{ condition: c, end: true }], defaultCondition: { end: true } });
  assert.deepEqual((await loadDefinition(base([sw('${ fn:isAdult }')], fns))).problems, []);
  await expectError(base([sw('${ fn:isMinor }')], fns), "expression calls unknown function 'fn:isMinor'");
  await expectError(base([sw('${ fn:rest }')], fns), "expression calls 'fn:rest', which is not an expression function (type rest)");
});

test('$SECRETS only inside function arguments', async () => {
  const fns = { functions: [{ name: 'f', operation: 'http://x/a.json#f' }], secrets: ['TOKEN'] };
  const ok = await loadDefinition(base([op('A', [{ functionRef: { refName: 'f', arguments: { auth: '${ $SECRETS.TOKEN }' } } }])], fns));
  assert.deepEqual(ok.problems, []);
  await expectError(
    base([op('A', [{ functionRef: 'f', actionDataFilter: { results: '${ $SECRETS.TOKEN }' } }])], fns),
    '$SECRETS used outside function arguments: "${ $SECRETS.TOKEN }"',
    '/states/0/actions/0/actionDataFilter/results',
  );
  await expectError(base([inject('A', { end: true, stateDataFilter: { output: '${ {t: $SECRETS.TOKEN} }' } })], fns), '$SECRETS used outside function arguments: "${ {t: $SECRETS.TOKEN} }"');
});

test('expressionLang must be jq (or Kogito jsonpath, translated: see jsonpath.test.ts)', async () => {
  await expectError(base([inject('A')], { expressionLang: 'abc' }), "expression language 'abc' is not supported");
});

test('schema errors are short, located, and free of oneOf noise', async () => {
  const errs = await errors(base([op('A', [{ functionRef: { refName: 'f', nope: 1 } }], { transition: 5 })], { functions: [{ name: 'f', operation: 'x', type: 'bad' }] }));
  assert.deepEqual(
    errs.map((e) => `${e.pointer}: ${e.message}`),
    [
      "/states/0/actions/0/functionRef/nope: unknown property 'nope'",
      "/states/0/transition: 'transition' must be a string or an object",
    ],
  );
  await expectError(base([{ name: 'A', type: 'sleepy', end: true }]), "unknown type 'sleepy'", '/states/0/type');
  // Unknown function types are extension types (Kogito): a warning, not an error.
  const r = await loadDefinition(base([op('A', [{ functionRef: 'f' }])], { functions: [{ name: 'f', operation: 'x', type: 'bad' }] }));
  assert.ok(r.definition);
  assert.equal(r.problems[0].message, "function type 'bad' is an extension type, not a 0.8 type");
});

test('strict turns warnings into errors', async () => {
  const doc = { id: 'k', start: 'A', states: [inject('A')] }; // no specVersion (Kogito)
  const lax = await loadDefinition(doc);
  assert.ok(lax.definition);
  assert.equal(lax.problems[0].severity, 'warning');
  assert.equal(lax.problems[0].message, "no 'specVersion'; read as a 0.8 document");
  const strict = await loadDefinition(doc, { strict: true });
  assert.equal(strict.definition, undefined);
  assert.equal(strict.problems[0].severity, 'error');
});

test('0.8 leniency: 0.7 names and Kogito forms are accepted with located warnings', async () => {
  const yaml = [
    'id: lenient',
    'start:',
    '  stateName: A',
    'functions:',
    '  - name: log',
    '    type: custom',
    '    operation: sysout:INFO',
    'events:',
    '  - { name: In, type: t.in, source: s }',
    'states:',
    '  - name: A',
    '    type: operation',
    '    actions:',
    '      - functionRef:',
    '          refName: log',
    '          parameters: { message: hi }',
    '    transition: W',
    '  - name: W',
    '    type: event',
    '    eventTimeout: PT5S',
    '    onEvents: [ { eventRefs: [In] } ]',
    '    end:',
    '      terminate: "true"',
    '',
  ].join('\n');
  const r = await loadDefinition(yaml, { source: 'lenient.yaml' });
  assert.ok(r.definition, JSON.stringify(r.problems));
  assert.deepEqual(
    r.problems.map((p) => `${p.line}:${p.col} ${p.message}`),
    [
      "1:1 no 'specVersion'; read as a 0.8 document",
      "3:3 'start' is an object without 'schedule' (the 0.8 schema wrongly requires it); accepted",
      "16:11 'parameters' is the 0.7 name of 'arguments'; read as 'arguments'",
      "20:5 state-level 'eventTimeout' is the 0.7 place; read as timeouts.eventTimeout",
      '23:18 \'terminate\' is the string "true"; read as the boolean true',
    ],
  );
  const def = r.definition!;
  assert.deepEqual(def.states[0].type === 'operation' && def.states[0].actions[0].functionRef, { refName: 'log', arguments: { message: 'hi' }, invoke: 'sync' });
  assert.equal(def.states[1].timeouts?.eventTimeout, 'PT5S');
  assert.equal(def.states[1].end?.terminate, true);
});

test('function metadata swflow.heartbeat: an ISO 8601 duration of a second or more, or off', async () => {
  const withHeartbeat = (value: unknown): Doc =>
    base([op('A', [{ functionRef: 'f' }])], { functions: [{ name: 'f', operation: 'api.json#op', metadata: { 'swflow.heartbeat': value } }] });
  for (const ok of ['PT2M', 'off', 'OFF', false]) assert.deepEqual(await errors(withHeartbeat(ok)), [], String(ok));
  await expectError(withHeartbeat('soon'), 'swflow.heartbeat: "soon" is not an ISO 8601 duration (expected e.g. "PT30S", "PT1H30M", "P1D"), or "off"', '/functions/0/metadata/swflow.heartbeat');
  await expectError(withHeartbeat('PT0.5S'), 'swflow.heartbeat: "PT0.5S" is shorter than a second: a worker cannot heartbeat that often', '/functions/0/metadata/swflow.heartbeat');
});

test('rpc and asyncapi operations have the formats the spec gives them; an rpc function without metadata.address is warned about', async () => {
  const call = (fn: Doc) => base([op('A', [{ functionRef: fn.name }])], { functions: [fn] });
  await expectError(call({ name: 'f', type: 'rpc', operation: 'greeting.proto#Greeter', metadata: { address: 'h:1' } }), 'rpc operation "greeting.proto#Greeter" is not "<proto file URI>#<service>#<method>"', '/functions/0/operation');
  await expectError(call({ name: 'f', type: 'asyncapi', operation: 'streetlights.yaml' }), 'asyncapi operation "streetlights.yaml" is not "<AsyncAPI document URI>#<operationId>"', '/functions/0/operation');
  const ok = await loadDefinition(call({ name: 'f', type: 'rpc', operation: 'file://greeting.proto#Greeter#SayHello', metadata: { address: 'localhost:50051' } }));
  assert.deepEqual(ok.problems, []);
  assert.deepEqual((await loadDefinition(call({ name: 'f', type: 'asyncapi', operation: 'file://streetlightsapi.yaml#onLightMeasured' }))).problems, []);
  const noAddress = await loadDefinition(call({ name: 'f', type: 'rpc', operation: 'greeting.proto#Greeter#SayHello' }));
  assert.ok(noAddress.definition);
  assert.deepEqual(noAddress.problems.map((p) => [p.severity, p.pointer, p.message]), [['warning', '/functions/0', `rpc function 'f' has no metadata.address: the built-in rpc adapter needs the gRPC service's "host:port" there`]]);
});
