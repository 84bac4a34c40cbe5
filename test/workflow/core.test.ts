/** Core interpreter behaviour on a real dev server: data flow, functions, merging, switch, errors. */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { WorkflowFailedError } from '@temporalio/client';
import { startDevEnv } from '../helpers/temporal';
import { def, harness, serviceError, type Harness } from './helpers';
import { retryUntilSuccess, workChild } from './scenarios';

let h: Harness;
before(async () => {
  h = await harness(await startDevEnv(), ['defaultWorker']);
});
after(async () => {
  await h?.close();
  await h?.env.teardown();
});

test('inject: hello world; output is the last state output', async () => {
  h.reset();
  const d = def({ id: 'helloworld', version: '1.0.0', start: 'Hello State', states: [{ name: 'Hello State', type: 'inject', data: { result: 'Hello World!' }, end: true }] });
  assert.deepEqual(await h.run(d, { a: 1 }), { a: 1, result: 'Hello World!' });
});

test('operation: function result merged (objects key by key)', async () => {
  h.reset();
  h.mocks.lookupCustomer = () => ({ customer: { name: 'John', zip: '54321' } });
  const d = def({
    id: 'mergeobjects',
    start: 'Lookup',
    functions: [{ name: 'lookupCustomer', operation: 'http://crm.example/api.json#lookup' }],
    states: [{ name: 'Lookup', type: 'operation', actions: [{ functionRef: 'lookupCustomer' }], end: true }],
  });
  const out = await h.run(d, { customer: { name: 'John', address: '1234 street', zip: '12345' } });
  assert.deepEqual(out, { customer: { name: 'John', address: '1234 street', zip: '54321' } });
  assert.equal(h.calls.length, 1);
  assert.equal(h.calls[0].activityType, 'sw.rest');
  assert.equal(h.calls[0].taskQueue, 'swflow-adapters');
  assert.deepEqual(h.calls[0].arguments, {});
  assert.equal(h.calls[0].call.state, 'Lookup');
});

test('operation: arrays concatenated keeping unique elements', async () => {
  h.reset();
  const M = { name: 'Michael', zip: '6789' };
  h.mocks.newCustomers = () => ({ customers: [{ name: 'John' }, { name: 'Jane' }, M] });
  const d = def({
    id: 'mergearrays',
    start: 'Fetch',
    functions: [{ name: 'newCustomers', operation: 'x#y' }],
    states: [{ name: 'Fetch', type: 'operation', actions: [{ functionRef: 'newCustomers' }], end: true }],
  });
  assert.deepEqual(await h.run(d, { customers: [M] }), { customers: [M, { name: 'John' }, { name: 'Jane' }] });
});

test('expression function with toStateData; no activity', async () => {
  h.reset();
  const d = def({
    id: 'simpleadd',
    start: 'Init',
    functions: [{ name: 'inc', type: 'expression', operation: '.count += 1 | .count' }],
    states: [
      { name: 'Init', type: 'inject', data: { count: 0 }, transition: 'Inc' },
      { name: 'Inc', type: 'operation', actions: [{ functionRef: 'inc', actionDataFilter: { toStateData: '${ .count }' } }], end: true },
    ],
  });
  assert.deepEqual(await h.run(d), { count: 1 });
  assert.equal(h.calls.length, 0);
});

test('switch: $CONST and fn:, first true wins', async () => {
  h.reset();
  const d = def({
    id: 'applicantcheck',
    start: 'Check',
    constants: { AGE: { MIN_ADULT: 18 } },
    functions: [{ name: 'isAdult', type: 'expression', operation: '.applicant | .age >= $CONST.AGE.MIN_ADULT' }],
    states: [
      {
        name: 'Check',
        type: 'switch',
        dataConditions: [
          { condition: '${ fn:isAdult }', transition: 'Approve' },
          { condition: '${ .applicant.age > 20 }', transition: 'Reject' },
        ],
        defaultCondition: { transition: 'Reject' },
      },
      { name: 'Approve', type: 'inject', data: { decision: 'approved' }, end: true },
      { name: 'Reject', type: 'inject', data: { decision: 'rejected' }, end: true },
    ],
  });
  assert.deepEqual(await h.run(d, { applicant: { age: 26 } }), { applicant: { age: 26 }, decision: 'approved' });
  assert.deepEqual(await h.run(d, { applicant: { age: 12 } }), { applicant: { age: 12 }, decision: 'rejected' });
  await h.saveHistory(h.lastWorkflowId!, 'interpreter-switch-constants');
});

test('action data filter: fromStateData / results / toStateData, stateDataFilter', async () => {
  h.reset();
  h.mocks.greet = (args) => ({ execInfo: { t: 1 }, greetingMessageResult: `${args.greeting} ${args.customerName}!` });
  const d = def({
    id: 'filters',
    start: 'S',
    functions: [{ name: 'greet', operation: 'x#greet' }],
    states: [
      {
        name: 'S',
        type: 'operation',
        stateDataFilter: { input: '${ .greetings }', output: '${ { finalCustomerGreeting } }' },
        actions: [
          {
            functionRef: { refName: 'greet', arguments: { greeting: '${ .hello.spanish }', customerName: '${ .customerInfo.name }' } },
            actionDataFilter: { fromStateData: '${ { hello, customerInfo } }', results: '${ .greetingMessageResult }', toStateData: '${ .finalCustomerGreeting }' },
          },
        ],
        end: true,
      },
    ],
  });
  const out = await h.run(d, { greetings: { hello: { spanish: 'Hola' }, customerInfo: { name: 'John' } } });
  assert.deepEqual(out, { finalCustomerGreeting: 'Hola John!' });
  assert.deepEqual(h.calls[0].arguments, { greeting: 'Hola', customerName: 'John' });
});

test('stateDataFilter selecting nothing leaves data unfiltered; useResults false', async () => {
  h.reset();
  h.mocks.f = () => ({ ignored: true });
  const d = def({
    id: 'nofilter',
    start: 'S',
    functions: [{ name: 'f', operation: 'x#f' }],
    states: [{ name: 'S', type: 'operation', stateDataFilter: { input: '${ .missing }' }, actions: [{ functionRef: 'f', actionDataFilter: { useResults: false } }], end: true }],
  });
  assert.deepEqual(await h.run(d, { a: 1 }), { a: 1 });
});

test('custom function on a named worker queue; CWM foreach with .person and $person', async () => {
  h.reset();
  h.mocks.HelloWorld = (args) => `Hello ${args.name}`;
  const d = def({
    id: 'example',
    start: 'Inject',
    functions: [{ name: 'HelloWorld', type: 'custom', operation: 'HelloWorld', metadata: { worker: 'defaultWorker' } }],
    states: [
      { name: 'Inject', type: 'inject', data: { people: [{ F: 'Peter', S: 'Parker' }, { F: 'Thor', S: 'Odinson' }, { F: 'Bruce', S: 'Banner' }] }, transition: 'Each' },
      {
        name: 'Each',
        type: 'foreach',
        inputCollection: '${ .people }',
        iterationParam: 'person',
        outputCollection: '${ .messages }',
        actions: [{ name: 'SayHello', functionRef: { refName: 'HelloWorld', arguments: { name: '${ .person.F + " " + $person.S }' } } }],
        end: { terminate: true },
      },
    ],
  });
  const out: any = await h.run(d);
  assert.deepEqual(out.messages, ['Hello Peter Parker', 'Hello Thor Odinson', 'Hello Bruce Banner']);
  assert.ok(h.calls.every((c) => c.activityType === 'HelloWorld' && c.taskQueue === 'defaultWorker'));
  await h.saveHistory(h.lastWorkflowId!, 'interpreter-cwm-foreach');
});

test('foreach sequential with batch and results in input order', async () => {
  h.reset();
  const order: number[] = [];
  h.mocks.sq = async (args) => {
    order.push(args.n);
    return { sq: args.n * args.n };
  };
  const d = def({
    id: 'fe',
    start: 'E',
    functions: [{ name: 'sq', operation: 'x#sq' }],
    states: [
      {
        name: 'E',
        type: 'foreach',
        mode: 'sequential',
        inputCollection: '${ .nums }',
        outputCollection: '${ .out.squares }',
        actions: [{ functionRef: { refName: 'sq', arguments: { n: '${ $item }' } }, actionDataFilter: { results: '${ .sq }' } }],
        end: true,
      },
    ],
  });
  const out: any = await h.run(d, { nums: [3, 1, 2] });
  assert.deepEqual(out.out.squares, [9, 1, 4]);
  assert.deepEqual(order, [3, 1, 2]);
});

test('onErrors transition on a defined error (by code)', async () => {
  h.reset();
  h.mocks.reserveItem = () => {
    throw serviceError('404', 'not found');
  };
  const d = def({
    id: 'inventory',
    start: 'Reserve',
    errors: [{ name: 'Item not in inventory', code: '404' }],
    functions: [{ name: 'reserveItem', operation: 'x#reserve' }],
    states: [
      { name: 'Reserve', type: 'operation', actions: [{ functionRef: { refName: 'reserveItem', arguments: { item: '${ .item }' } } }], onErrors: [{ errorRef: 'Item not in inventory', transition: 'Refund' }], end: true },
      { name: 'Refund', type: 'inject', data: { refunded: true }, end: true },
    ],
  });
  assert.deepEqual(await h.run(d, { item: 'book' }), { item: 'book', refunded: true });
  await h.saveHistory(h.lastWorkflowId!, 'interpreter-onerrors-transition');
});

test('retryRef + retryableErrors retries until success', async () => {
  await retryUntilSuccess(h, 'PT0.1S', 'interpreter-retry-then-succeed');
});

test('compensation runs in reverse order', async () => {
  h.reset();
  for (const f of ['bookFlight', 'bookHotel', 'cancelFlight', 'cancelHotel']) h.mocks[f] = () => ({ [f]: true });
  const d = def({
    id: 'booking',
    start: 'BookFlight',
    functions: ['bookFlight', 'bookHotel', 'cancelFlight', 'cancelHotel'].map((name) => ({ name, operation: `x#${name}` })),
    states: [
      { name: 'BookFlight', type: 'operation', actions: [{ functionRef: 'bookFlight' }], compensatedBy: 'CancelFlight', transition: 'BookHotel' },
      { name: 'BookHotel', type: 'operation', actions: [{ functionRef: 'bookHotel' }], compensatedBy: 'CancelHotel', end: { compensate: true } },
      { name: 'CancelFlight', type: 'operation', usedForCompensation: true, actions: [{ functionRef: 'cancelFlight' }] },
      { name: 'CancelHotel', type: 'operation', usedForCompensation: true, actions: [{ functionRef: 'cancelHotel' }] },
    ],
  });
  await h.run(d);
  assert.deepEqual(h.calls.map((c) => c.function), ['bookFlight', 'bookHotel', 'cancelHotel', 'cancelFlight']);
  await h.saveHistory(h.lastWorkflowId!, 'interpreter-compensation');
});

const child = def(workChild);

// On the dev server: an abandoned child still running keeps the Java time-skipping server from skipping time.
test('subflow (async, onParentComplete continue): parent does not wait', async () => {
  h.reset();
  h.mocks.work = () => ({ done: true });
  const d = def({
    id: 'parent2',
    start: 'Call',
    states: [{ name: 'Call', type: 'operation', actions: [{ subFlowRef: { workflowId: 'child', invoke: 'async', onParentComplete: 'continue' } }], end: true }],
  });
  assert.deepEqual(await h.run(d, { n: 1 }, { subflows: { child } }), { n: 1 });
  // the abandoned child runs on (and must finish: a running child holds the time-skipping lock)
  const history = await h.env.client.workflow.getHandle(h.lastWorkflowId!).fetchHistory();
  const started = history.events!.find((e: any) => e.childWorkflowExecutionStartedEventAttributes);
  const childId = started!.childWorkflowExecutionStartedEventAttributes!.workflowExecution!.workflowId!;
  assert.deepEqual(await h.env.client.workflow.getHandle(childId).result(), { n: 1, done: true });
});


test('spec default: onParentComplete — terminate: an async subflow ends with its parent', async () => {
  h.reset();
  const sleepy = def({ id: 'sleepy-child', start: 'Nap', states: [{ name: 'Nap', type: 'sleep', duration: 'P1D', end: true }] });
  const d = def({
    id: 'short-parent',
    start: 'Call',
    states: [{ name: 'Call', type: 'operation', actions: [{ subFlowRef: { workflowId: 'sleepy-child', invoke: 'async' } }], end: true }],
  });
  assert.deepEqual(await h.run(d, { n: 1 }, { subflows: { 'sleepy-child': sleepy } }), { n: 1 });
  const history = await h.env.client.workflow.getHandle(h.lastWorkflowId!).fetchHistory();
  const started = history.events!.find((e: any) => e.childWorkflowExecutionStartedEventAttributes);
  const childHandle = h.env.client.workflow.getHandle(started!.childWorkflowExecutionStartedEventAttributes!.workflowExecution!.workflowId!);
  // the server applies the parent close policy once the parent has closed (a real server: the time-skipping one does not)
  await assert.rejects(childHandle.result(), (e: any) => e instanceof WorkflowFailedError && /parent close policy/.test(String(e.cause?.message)));
  assert.equal((await childHandle.describe()).status.name, 'TERMINATED');
});

test('arguments referencing $SECRETS travel unevaluated in secretArguments', async () => {
  h.reset();
  h.mocks.api = () => ({ ok: true });
  const d = def({
    id: 'secretive',
    start: 'S',
    secrets: ['apiKey'],
    functions: [{ name: 'api', operation: 'x#api' }],
    states: [{ name: 'S', type: 'operation', actions: [{ functionRef: { refName: 'api', arguments: { user: '${ .user }', token: '${ $SECRETS.apiKey }' } } }], end: true }],
  });
  assert.deepEqual(await h.run(d, { user: 'u1' }), { user: 'u1', ok: true });
  assert.deepEqual(h.calls[0].call.secretArguments, { '/token': '${ $SECRETS.apiKey }' });
  assert.equal((h.calls[0].arguments as any).user, 'u1');
});
