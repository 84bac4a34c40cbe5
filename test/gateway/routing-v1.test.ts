/**
 * The 1.0 routing function alone (no server): which listen filters an event may match wherever
 * they sit, the SwAwaitedEvents entries looked up (types and correlation-qualified types, the
 * same strings a run publishes), and the instances `schedule.on` starts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadAnyDefinition } from '../../src/dsl';
import { isV1Definition, type V1Definition } from '../../src/common/model-v1';
import type { CloudEventJson } from '../../src/common/contracts';
import { awaitedEntry, correlationEntry, readsEventOnly } from '../../src/common/awaited-events';
import { routeV1, listenFilters } from '../../src/gateway/routing-v1';

async function v1(name: string, body: Record<string, unknown>, version = '1.0.0'): Promise<V1Definition> {
  const loaded = await loadAnyDefinition({ document: { dsl: '1.0.0', namespace: 'test', name, version }, ...body });
  assert.ok(loaded.definition && isV1Definition(loaded.definition), JSON.stringify(loaded.problems));
  return loaded.definition;
}

const ce = (type: string, extra: Record<string, unknown> = {}): CloudEventJson => ({ specversion: '1.0', id: 'e-1', source: 'shop', type, ...extra });
const listen = (to: Record<string, unknown>, more: Record<string, unknown> = {}) => ({ listen: { to }, ...more });

test('listen filters are found wherever the listen sits: nested do, for, fork branches, try and catch, foreach.do, until, use.functions', async () => {
  const doc = await v1('nested', {
    use: { functions: { waitFn: listen({ one: { with: { type: 't.fn' } } }) } },
    do: [
      { outer: { do: [{ inner: listen({ one: { with: { type: 't.do' } } }) }] } },
      { loop: { for: { each: 'i', in: '${ [1] }' }, do: [{ l: listen({ all: [{ with: { type: 't.for' } }] }) }] } },
      { par: { fork: { branches: [{ a: listen({ one: { with: { type: 't.fork' } } }) }, { b: { set: { b: 1 } } }] } } },
      { guarded: { try: [{ l: listen({ any: [{ with: { type: 't.try' } }], until: { one: { with: { type: 't.stop' } } } }) }], catch: { do: [{ c: listen({ one: { with: { type: 't.catch' } } }) }] } } },
      { each: listen({ one: { with: { type: 't.each' } } }, { foreach: { item: 'ev', do: [{ deeper: listen({ one: { with: { type: 't.foreach' } } }) }] } }) },
    ],
  });
  assert.deepEqual(
    listenFilters(doc.workflow.do, '/do').map((f) => [f.at, f.filter.with?.type]),
    [
      ['/do/0/outer/do/0/inner', 't.do'],
      ['/do/1/loop/do/0/l', 't.for'],
      ['/do/2/par/fork/branches/0/a', 't.fork'],
      ['/do/3/guarded/try/0/l', 't.try'],
      ['/do/3/guarded/try/0/l', 't.stop'],
      ['/do/3/guarded/catch/do/0/c', 't.catch'],
      ['/do/4/each', 't.each'],
      ['/do/4/each/foreach/do/0/deeper', 't.foreach'],
    ],
  );
  for (const t of ['t.fn', 't.do', 't.for', 't.fork', 't.try', 't.stop', 't.catch', 't.each', 't.foreach']) {
    assert.deepEqual(routeV1([doc], ce(t)), [{ via: 'visibility', workflowType: 'test/nested', eventType: t, entries: [t], events: [`listen ${t}`] }], t);
  }
  assert.deepEqual(routeV1([doc], ce('t.other')), [], 'a type no filter takes: no delivery (the gateway answers 404)');
});

test('with: literals and anchored regular expressions are checked, an expression may match, `any: []` takes every event', async () => {
  const doc = await v1('filters', {
    do: [
      { a: listen({ one: { with: { type: 'com\\.example\\..+\\.created', source: 'https://shop.example' } } }) },
      { b: listen({ one: { with: { type: 't.expr', subject: '${ . == $context.subject }' } } }) },
    ],
  });
  assert.deepEqual(routeV1([doc], ce('com.example.order.created', { source: 'https://shop.example' }))[0], { via: 'visibility', workflowType: 'test/filters', eventType: 'com.example.order.created', entries: ['com\\.example\\..+\\.created'], events: ['listen com\\.example\\..+\\.created'] });
  assert.deepEqual(routeV1([doc], ce('com.example.order.created', { source: 'elsewhere' })), [], 'source is a literal that does not match');
  assert.deepEqual(routeV1([doc], ce('xcom.example.order.created', { source: 'https://shop.example' })), [], 'anchored');
  assert.equal(routeV1([doc], ce('t.expr', { subject: 'whatever' })).length, 1, 'an expression attribute may match (the run decides)');

  const anyDoc = await v1('any', { do: [{ a: listen({ any: [] }) }] });
  assert.deepEqual(routeV1([anyDoc], ce('anything'))[0], { via: 'visibility', workflowType: 'test/any', eventType: 'anything', entries: ['*'], events: ['listen *'] });
  const exprType = await v1('exprtype', { do: [{ a: listen({ one: { with: { type: '${ "t." + $context.kind }' } } }) }] });
  assert.deepEqual((routeV1([exprType], ce('t.x'))[0] as any).entries, ['*'], 'a type that is an expression is published and looked up as *');
});

test('correlate: the entry qualified by the values `from` gives on the event; a literal expect that differs rules the filter out; a from reading more than the event looks up the type only', async () => {
  const doc = await v1('pay', {
    do: [
      {
        wait: listen({
          one: { with: { type: 'payment.received' }, correlate: { orderId: { from: '${ .data.orderId }', expect: '${ .orderId }' }, region: { from: '${ .region }' } } },
        }),
      },
      { fixed: listen({ one: { with: { type: 'refund' }, correlate: { orderId: { from: '${ .data.orderId }', expect: 'O-1' } } } }) },
      { ctx: listen({ one: { with: { type: 'ctx' }, correlate: { orderId: { from: '${ .data[$context.key] }' } } } }) },
    ],
  });
  const d = routeV1([doc], ce('payment.received', { region: 'eu', data: { orderId: 'O-7' } }))[0] as any;
  assert.deepEqual(d.entries, ['payment.received', 'payment.received#orderId=O-7#region=eu']);
  assert.deepEqual(d.entries[1], correlationEntry('payment.received', { region: 'eu', orderId: 'O-7' }), 'keys sorted');
  // What a run waiting for O-7 in eu publishes is the same string.
  const filter = (doc.workflow.do[0].wait.listen!.to.one)!;
  assert.equal(awaitedEntry(filter, (k) => ({ orderId: 'O-7', region: 'eu' })[k]), d.entries[1]);
  assert.equal(awaitedEntry(filter, (k) => ({ orderId: 'O-7' } as Record<string, string>)[k]), 'payment.received', 'a value not known yet: the plain type');
  assert.equal(awaitedEntry(filter, (k) => ({ orderId: 'O'.repeat(300), region: 'eu' })[k]), 'payment.received', 'an entry too long for a keyword: the plain type');

  assert.deepEqual((routeV1([doc], ce('refund', { data: { orderId: 'O-1' } }))[0] as any).entries, ['refund', 'refund#orderId=O-1']);
  assert.deepEqual(routeV1([doc], ce('refund', { data: { orderId: 'O-2' } })), [], 'expect O-1: an event for O-2 matches no filter');

  assert.equal(correlationEntry('t', { n: 1, o: { b: 'x"y', a: [true] }, s: '50%#1' }), 't#n=1#o={%22a%22:[true],%22b%22:%22x\\%22y%22}#s=50%25%231', 'no " (SQLite visibility), no # inside a value');
  assert.equal(readsEventOnly('${ .data[$context.key] }'), false);
  assert.equal(readsEventOnly('${ .data["$x"] }'), true, 'a $ inside a string literal is no variable');
  assert.deepEqual((routeV1([doc], ce('ctx', { data: { a: 1 } }))[0] as any).entries, ['ctx']);
  assert.equal(awaitedEntry(doc.workflow.do[2].ctx.listen!.to.one, () => 'known'), 'ctx', 'the run publishes the plain type too');
});

test('schedule.on: named after the event when uncorrelated (started once); by the correlation values when correlated; several uncorrelated events join a waiting instance first; the latest version decides', async () => {
  const one = await v1('on-one', { schedule: { on: { one: { with: { type: 'start.me' } } } }, do: [{ s: { set: { ok: true } } }] });
  assert.deepEqual(routeV1([one], ce('start.me', { id: 'x/1' })), [
    { via: 'id', workflowType: 'test/on-one', workflowId: 'test/on-one/shop/x%2F1', start: true, keyedBy: 'event', events: ['schedule.on start.me'] },
  ]);
  assert.deepEqual(routeV1([one], ce('other')), []);

  const all = await v1('on-all', {
    schedule: { on: { all: [{ with: { type: 'a' }, correlate: { k: { from: '${ .data.k }' } } }, { with: { type: 'b' }, correlate: { k: { from: '${ .data.k }' } } }] } },
    do: [{ s: { set: { ok: true } } }],
  });
  assert.deepEqual(routeV1([all], ce('b', { data: { k: 7 } })), [{ via: 'id', workflowType: 'test/on-all', workflowId: 'test/on-all/k=7', start: true, keyedBy: 'correlation', events: ['schedule.on b'] }]);
  assert.equal((routeV1([all], ce('a', { data: { k: 'x/y' } }))[0] as any).workflowId, 'test/on-all/k=x%2Fy');

  const allFree = await v1('on-all-free', { schedule: { on: { all: [{ with: { type: 'a' } }, { with: { type: 'b' } }] } }, do: [{ s: { set: { ok: true } } }] });
  const [d] = routeV1([allFree], ce('b')) as any[];
  assert.equal(d.workflowId, 'test/on-all-free/shop/e-1');
  assert.deepEqual(d.unlessAwaited, { via: 'visibility', workflowType: 'test/on-all-free', eventType: 'b', entries: ['b'], events: ['schedule.on b'] });

  const newer = await v1('on-one', { do: [{ l: listen({ one: { with: { type: 'start.me' } } }) }] }, '2.0.0');
  assert.deepEqual(
    routeV1([one, newer], ce('start.me')).map((x) => x.via),
    ['visibility'],
    'version 2.0.0 no longer starts by the event: only its listens are routed',
  );
});

test('the routing of a document is kept per loaded document: the same object routes alike, a changed file (a new object) by its new filters', async () => {
  const before = await v1('changing', { do: [{ w: listen({ one: { with: { type: 't.old' } } }) }] });
  const first = routeV1([before], ce('t.old'));
  assert.deepEqual(routeV1([before], ce('t.old')), first);
  assert.equal(first.length, 1);
  assert.deepEqual(routeV1([before], ce('t.new')), []);
  // The registry loads a changed file into a new object: the event types it listens for now decide.
  const after = await v1('changing', { do: [{ w: listen({ one: { with: { type: 't.new' } } }) }], schedule: { on: { one: { with: { type: 't.begin' } } } } });
  assert.deepEqual(routeV1([after], ce('t.old')), []);
  assert.deepEqual(routeV1([after], ce('t.new')).map((d) => [d.via, d.workflowType]), [['visibility', 'test/changing']]);
  assert.deepEqual(routeV1([after], ce('t.begin')).map((d) => [d.via, d.workflowType]), [['id', 'test/changing']]);
  assert.deepEqual(routeV1([before], ce('t.old')), first);
  console.log('routing kept per document object: an unchanged document routes alike; a changed one (new object) by its new listen and schedule.on filters');
});
