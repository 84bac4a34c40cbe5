/**
 * The run page's pure parts: a definition as a graph (0.8 states, 1.0 task tree), what recorded
 * histories say about each node (test/fixtures/histories), and a run drawn on the graph from the
 * `state` query's steps or from the history alone.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { historyFromFixture } from '../../src/testing/history';
import type { StepRecord } from '../../src/common/contracts';
import type { Definition } from '../../src/common/model';
import { loadAnyDefinition } from '../../src/dsl';
import { graphOf, type Graph } from '../../src/ui/graph';
import { historyFacts, nodeOfSummary, pinnedDefinition } from '../../src/ui/history';
import { layout } from '../../src/ui/layout';
import { overlayOf, stepsFromHistory } from '../../src/ui/overlay';
import { runPageUrl, withRunPageLink } from '../../src/ui/link';

const FIXTURES = join(__dirname, '..', 'fixtures', 'histories');
const events = (name: string) => historyFromFixture(readFileSync(join(FIXTURES, `${name}.json`), 'utf8')).events ?? [];

async function load(doc: unknown): Promise<Definition> {
  const r = await loadAnyDefinition(doc);
  assert.ok(r.definition, JSON.stringify(r.problems));
  return r.definition;
}

const edgesOf = (g: Graph) => g.edges.map((e) => `${e.from} -> ${e.to}${e.label ? ` [${e.label}]` : ''}`);

const order08 = {
  id: 'order',
  version: '1.0',
  specVersion: '0.8',
  start: 'Check',
  functions: [{ name: 'charge', operation: 'http://pay.example/api.json#charge' }],
  errors: [{ name: 'declined', code: '402' }],
  states: [
    { name: 'Check', type: 'switch', dataConditions: [{ name: 'large', condition: '${ .amount > 100 }', transition: 'Charge' }], defaultCondition: { end: true } },
    { name: 'Charge', type: 'operation', actions: [{ functionRef: 'charge' }], onErrors: [{ errorRef: 'declined', transition: 'Declined' }], end: true },
    { name: 'Declined', type: 'inject', data: { declined: true }, end: true },
  ],
};

const order10 = {
  document: { dsl: '1.0.0', namespace: 'shop', name: 'order', version: '1.0.0' },
  do: [
    { decide: { switch: [{ broken: { when: '${ .fail }', then: 'explode' } }, { fine: { then: 'continue' } }] } },
    { count: { for: { each: 'i', in: '${ [1,2] }' }, do: [{ add: { set: { n: 1 } } }] } },
    { guarded: { try: [{ risky: { call: 'http', with: { method: 'get', endpoint: 'http://x.example' } } }], catch: { do: [{ recover: { set: { ok: false } } }] } } },
    { both: { fork: { branches: [{ left: { wait: 'PT1S' } }, { right: { set: { r: 1 } } }] } } },
    { finish: { set: { done: true }, then: 'end' } },
    { explode: { raise: { error: { type: 'https://x.example/rejected', status: 400 } } } },
  ],
};

test('a 0.8 definition: a node per state, edges for transitions, conditions, error handlers and end', async () => {
  const g = graphOf(await load(order08));
  assert.equal(g.dsl, '0.8');
  assert.deepEqual(g.nodes.map((n) => `${n.id}:${n.type}`), ['start:start', 'Check:switch', 'Charge:operation', 'Declined:inject', 'end:end']);
  assert.equal(g.nodes.find((n) => n.id === 'Charge')!.detail, 'charge');
  assert.deepEqual(edgesOf(g), ['start -> Check', 'Check -> Charge [large]', 'Check -> end [default]', 'Charge -> end', 'Charge -> Declined [error declined]', 'Declined -> end']);
});

test('a 1.0 definition: tasks by JSON pointer, composites hold their lists, then / switch / exit / end followed', async () => {
  const g = graphOf(await load(order10));
  assert.equal(g.dsl, '1.0');
  assert.deepEqual(
    g.nodes.map((n) => `${n.id}${n.parent ? ` in ${n.parent}` : ''}`),
    [
      'start',
      '/do/0/decide',
      '/do/1/count',
      '/do/1/count/do/0/add in /do/1/count',
      '/do/2/guarded',
      '/do/2/guarded/try/0/risky in /do/2/guarded',
      '/do/2/guarded/catch/do/0/recover in /do/2/guarded',
      '/do/3/both',
      '/do/3/both/fork/branches/0/left in /do/3/both',
      '/do/3/both/fork/branches/1/right in /do/3/both',
      '/do/4/finish',
      '/do/5/explode',
      'end',
    ],
  );
  assert.deepEqual(edgesOf(g), [
    '/do/0/decide -> /do/5/explode [broken]',
    '/do/0/decide -> /do/1/count [fine]',
    '/do/1/count/do/0/add -> /do/2/guarded',
    '/do/1/count -> /do/1/count/do/0/add [each]',
    '/do/1/count -> /do/2/guarded [done]',
    '/do/2/guarded/try/0/risky -> /do/3/both',
    '/do/2/guarded -> /do/2/guarded/try/0/risky [try]',
    '/do/2/guarded/catch/do/0/recover -> /do/3/both',
    '/do/2/guarded -> /do/2/guarded/catch/do/0/recover [catch]',
    '/do/3/both/fork/branches/0/left -> /do/4/finish',
    '/do/3/both -> /do/3/both/fork/branches/0/left [branch 1]',
    '/do/3/both/fork/branches/1/right -> /do/4/finish',
    '/do/3/both -> /do/3/both/fork/branches/1/right [branch 2]',
    '/do/4/finish -> end',
    'start -> /do/0/decide',
  ]);
  assert.equal(g.nodes.find((n) => n.id === '/do/2/guarded/try/0/risky')!.detail, 'http');
});

test('the layout places every node, composites around their tasks, edges with points', async () => {
  const g = await layout(graphOf(await load(order10)));
  assert.equal(g.nodes.length, 13);
  const at = (id: string) => g.nodes.find((n) => n.id === id)!;
  const box = at('/do/2/guarded');
  assert.equal(box.container, true);
  for (const id of ['/do/2/guarded/try/0/risky', '/do/2/guarded/catch/do/0/recover']) {
    const n = at(id);
    assert.ok(n.x >= box.x && n.y >= box.y && n.x + n.width <= box.x + box.width && n.y + n.height <= box.y + box.height, `${id} inside its try`);
  }
  assert.ok(at('start').y < at('/do/0/decide').y && at('/do/4/finish').y < at('end').y, 'top to bottom');
  for (const e of g.edges) assert.ok(e.points.length >= 2, `${e.id} routed`);
  assert.ok(g.width > 0 && g.height > 0);
});

test('the history of a 0.8 run: commands by state, SwState writes, how it closed, its pinned definition', () => {
  const facts = historyFacts(events('interpreter-retry-schedule-timers'));
  const spans = facts.commands.Call;
  assert.equal(spans.filter((s) => s.kind === 'activity').length, 5);
  assert.equal(spans.filter((s) => s.kind === 'activity' && s.failed).length, 4);
  assert.equal(spans.filter((s) => s.kind === 'timer').length, 4);
  assert.ok(spans.every((s) => s.closedAt !== undefined && s.closedAt >= s.startedAt));
  assert.equal(facts.closed, 'completed');

  const sleepy = events('interpreter-sleep-then-event');
  const f2 = historyFacts(sleepy);
  assert.deepEqual(f2.swStates.map((s) => s.state), ['Nap', 'Wait']);
  assert.deepEqual(Object.keys(f2.commands), ['Nap']);
  assert.equal((pinnedDefinition(sleepy) as { id: string }).id, 'napper');
  assert.deepEqual(stepsFromHistory(f2).map((s) => `${s.step}:${s.status}`), ['Nap:done', 'Wait:done']);
});

test('the history of a 1.0 run: local calls by task pointer; the definition from the resolve marker', () => {
  const local = historyFacts(events('interpreter-v1-local-calls'));
  assert.deepEqual(Object.keys(local.commands).sort(), ['/do/0/first', '/do/1/second']);
  assert.equal(local.commands['/do/0/first'][0].kind, 'local');
  const again = events('interpreter-v1-schedule-after');
  assert.equal((pinnedDefinition(again) as { id: string }).id, 'test/again');
  assert.equal(historyFacts(again).closed, 'continuedAsNew');
  assert.equal(nodeOfSummary('Charge Card › charge → chargeCard'), 'Charge Card');
  assert.equal(nodeOfSummary('/do/0/first → GET http://x/a›b'), '/do/0/first');
});

test('a running run drawn from its history alone: the last node is current, the rest not reached', () => {
  const all = events('interpreter-sleep-then-event');
  // The pinned definition is the canonical model already (what the server draws).
  const graph = graphOf(pinnedDefinition(all) as Definition);
  // Up to the timer that sleeps in Nap: the run waits there.
  const cut = all.slice(0, all.findIndex((e) => e.timerStartedEventAttributes) + 2);
  const running = overlayOf(graph, { status: 'Running', history: historyFacts(cut), now: Date.now() });
  assert.equal(running.source, 'history');
  assert.deepEqual(running.current, ['Nap']);
  assert.equal(running.nodes.Nap.mark, 'current');
  assert.equal(running.nodes.Wait.mark, 'unreached');
  assert.deepEqual(running.path, ['start', 'Nap']);

  const done = overlayOf(graph, { status: 'Completed', history: historyFacts(all), now: Date.now() });
  assert.deepEqual(done.path, ['start', 'Nap', 'Wait', 'end']);
  assert.deepEqual(done.current, []);
  assert.equal(done.nodes.Nap.timers, 1);
  assert.ok(done.nodes.Nap.ms >= 200, `Nap slept PT0.2S: ${done.nodes.Nap.ms} ms`);
  const taken = done.edges.map((id) => graph.edges.find((e) => e.id === id)!).map((e) => `${e.from} -> ${e.to}`);
  assert.deepEqual(taken.sort(), ['Nap -> Wait', 'Wait -> end', 'start -> Nap']);
});

test('a run drawn from its steps: counts, durations, the current task, a caught error, fork branches', async () => {
  const graph = graphOf(await load(order10));
  const t0 = 1_000_000;
  const step = (s: string, type: string, enteredAt: number, leftAt?: number, status: StepRecord['status'] = leftAt === undefined ? 'running' : 'done'): StepRecord => ({ step: s, type, status, enteredAt, ...(leftAt !== undefined ? { leftAt } : {}) });
  const steps = [
    step('/do/0/decide', 'switch', t0, t0),
    step('/do/1/count', 'for', t0, t0 + 30),
    step('/do/1/count/do/0/add', 'set', t0, t0 + 10),
    step('/do/1/count/do/0/add', 'set', t0 + 10, t0 + 30),
    step('/do/2/guarded', 'try', t0 + 30, t0 + 40),
    step('/do/2/guarded/try/0/risky', 'call', t0 + 30, t0 + 35, 'failed'),
    step('/do/2/guarded/catch/do/0/recover', 'set', t0 + 35, t0 + 40),
    step('/do/3/both', 'fork', t0 + 40),
    step('/do/3/both/fork/branches/0/left', 'wait', t0 + 40),
    step('/do/3/both/fork/branches/1/right', 'set', t0 + 40, t0 + 40),
  ];
  const o = overlayOf(graph, { status: 'Running', steps, stepsTotal: steps.length, history: { commands: {}, swStates: [] }, now: t0 + 1040 });
  assert.equal(o.source, 'query');
  assert.deepEqual(o.current, ['/do/3/both', '/do/3/both/fork/branches/0/left']);
  assert.equal(o.nodes['/do/1/count/do/0/add'].count, 2);
  assert.equal(o.nodes['/do/1/count/do/0/add'].ms, 30);
  assert.equal(o.nodes['/do/3/both/fork/branches/0/left'].ms, 1000, 'an open visit counts up to now');
  assert.equal(o.nodes['/do/2/guarded/try/0/risky'].mark, 'visited', 'a caught error leaves its task visited');
  assert.equal(o.nodes['/do/2/guarded/try/0/risky'].errors, 1);
  assert.equal(o.nodes['/do/4/finish'].mark, 'unreached');
  assert.equal(o.nodes.end.mark, 'unreached');
  assert.equal(o.failure, undefined);
  const taken = new Set(o.edges.map((id) => graph.edges.find((e) => e.id === id)!).map((e) => `${e.from} -> ${e.to}`));
  for (const e of ['start -> /do/0/decide', '/do/0/decide -> /do/1/count', '/do/1/count -> /do/1/count/do/0/add', '/do/2/guarded -> /do/2/guarded/catch/do/0/recover', '/do/3/both -> /do/3/both/fork/branches/1/right']) assert.ok(taken.has(e), e);
  assert.ok(!taken.has('/do/0/decide -> /do/5/explode'));
  assert.ok(!taken.has('/do/3/both/fork/branches/1/right -> /do/4/finish'), 'finish not reached yet');

  const failed = overlayOf(graph, {
    status: 'Failed',
    steps: [step('/do/0/decide', 'switch', t0, t0), step('/do/5/explode', 'raise', t0, t0 + 1, 'failed')],
    history: { commands: {}, swStates: [], closed: 'failed', closedAt: t0 + 1, failure: 'Rejected (status 400, at /do/5/explode)' },
    now: t0 + 5,
  });
  assert.equal(failed.nodes['/do/5/explode'].mark, 'failed');
  assert.deepEqual(failed.failure, { node: '/do/5/explode', message: 'Rejected (status 400, at /do/5/explode)' });
  assert.deepEqual(failed.path, ['start', '/do/0/decide', '/do/5/explode']);
});

test('the Web UI link to the page comes from configuration (SWFLOW_UI_URL), none without it', () => {
  assert.equal(runPageUrl('order 1/a', 'http://127.0.0.1:8234/'), 'http://127.0.0.1:8234/runs/order%201%2Fa');
  assert.equal(runPageUrl('x', undefined), undefined);
  assert.equal(withRunPageLink('x', 'An order.', 'http://h:1'), 'An order.\n\n[Watch this run on its graph](http://h:1/runs/x)');
  const saved = process.env.SWFLOW_UI_URL;
  delete process.env.SWFLOW_UI_URL;
  try {
    assert.equal(withRunPageLink('x', 'An order.'), 'An order.');
    assert.equal(withRunPageLink('x'), undefined);
  } finally {
    if (saved !== undefined) process.env.SWFLOW_UI_URL = saved;
  }
});
