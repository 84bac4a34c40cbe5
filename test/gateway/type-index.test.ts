/**
 * The gateway's type index (src/gateway/type-index.ts): an event is routed through the
 * definitions that may consume its type only, with the same deliveries as routing every
 * definition; exact types, regular-expression types, runtime expressions and filters without a
 * type; only the latest version of an id. Pure: real definition files, no server.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { DefinitionRegistry } from '../../src/definitions/registry';
import { candidatesFor } from '../../src/gateway/type-index';
import { route } from '../../src/gateway/routing';
import { routeV1 } from '../../src/gateway/routing-v1';
import { isV1Definition, type V1Definition } from '../../src/common/model-v1';
import type { Definition } from '../../src/common/model';

const dir = mkdtempSync(join(tmpdir(), 'swflow-type-index-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const v08 = (id: string, version: string, type: string, start = false) => ({
  id, version, specVersion: '0.8', start: start ? 'Wait' : 'Set',
  events: [{ name: 'E', type, source: 'https://tests.example' }],
  states: [...(start ? [] : [{ name: 'Set', type: 'inject', data: {}, transition: 'Wait' }]), { name: 'Wait', type: 'event', onEvents: [{ eventRefs: ['E'] }], end: true }],
});
const v1 = (name: string, version: string, filter: Record<string, unknown>) => ({ document: { dsl: '1.0.0', namespace: 'tests', name, version }, do: [{ wait: { listen: { to: { one: { with: filter } } } } }] });

const files: Record<string, unknown> = {
  'exact.sw.json': v08('exact', '1.0', 'order.placed'),
  'exact-old.sw.json': v08('moved', '1.0', 'order.placed'),
  'exact-new.sw.json': v08('moved', '2.0', 'order.shipped'), // the latest version no longer consumes order.placed
  'starter.sw.json': v08('starter', '1.0', 'order.placed', true),
  'literal.sw.yaml': v1('literal', '1.0.0', { type: 'order.placed' }),
  'pattern.sw.yaml': v1('pattern', '1.0.0', { type: 'order\\..*' }),
  'dotted.sw.yaml': v1('dotted', '1.0.0', { type: 'order.paid' }), // a '.' matches any character: also "orderXpaid"
  'expression.sw.yaml': v1('expression', '1.0.0', { type: '${ . == "x" }' }),
  'untyped.sw.yaml': v1('untyped', '1.0.0', { source: 'https://tests.example' }),
  'other.sw.yaml': v1('other', '1.0.0', { type: 'invoice.sent' }),
  'broken-pattern.sw.yaml': v1('brokenpattern', '1.0.0', { type: 'order.(' }),
};
for (const [name, doc] of Object.entries(files)) writeFileSync(join(dir, name), name.endsWith('.json') ? JSON.stringify(doc) : stringify(doc));

const everyDefinition = (defs: Definition[], e: { type: string; source: string; id: string; specversion: string }) =>
  [...route(defs.filter((d) => !isV1Definition(d)) as never, e as never), ...routeV1(defs.filter((d): d is V1Definition => isV1Definition(d)), e as never)];

test('candidates of a type: exact, pattern, expression and untyped filters, latest versions only; the same deliveries as routing every definition', async () => {
  const registry = new DefinitionRegistry([dir], { rescanMs: 3_600_000 });
  try {
    const defs = await registry.indexedDefinitions();
    assert.deepEqual(registry.problems().map((p) => p.path), [], 'every fixture loads');
    const ids = (type: string) => {
      const c = candidatesFor(defs, type);
      return [...c.v08.map((d) => d.id), ...c.v1.map((d) => d.id)].sort();
    };
    assert.deepEqual(ids('order.placed'), ['exact', 'starter', 'tests/expression', 'tests/literal', 'tests/pattern', 'tests/untyped']);
    assert.deepEqual(ids('orderXpaid'), ['tests/dotted', 'tests/expression', 'tests/untyped']);
    assert.deepEqual(ids('order.shipped'), ['moved', 'tests/expression', 'tests/pattern', 'tests/untyped']);
    assert.deepEqual(ids('invoice.sent'), ['tests/expression', 'tests/other', 'tests/untyped']);
    assert.deepEqual(ids('nobody.listens'), ['tests/expression', 'tests/untyped']);
    assert.equal(candidatesFor(defs, 'order.placed'), candidatesFor(defs, 'order.placed'), 'worked out once per type');
    let compared = 0;
    let deliveries = 0;
    for (const type of ['order.placed', 'order.paid', 'orderXpaid', 'order.shipped', 'invoice.sent', 'nobody.listens', 'x']) {
      const e = { specversion: '1.0', id: `e-${type}`, source: 'https://tests.example', type };
      const c = candidatesFor(defs, type);
      const routed = [...route(c.v08, e as never), ...routeV1(c.v1, e as never)];
      assert.deepEqual(routed, everyDefinition(defs, e), type);
      deliveries += routed.length;
      compared++;
    }
    console.log(`${defs.length} definitions: candidates per type as expected (exact, '.'-pattern, expression, untyped, latest version only, an invalid pattern never a candidate); ${compared} event types route as routing every definition does (${deliveries} deliveries)`);
    assert.ok(deliveries >= 10, `${deliveries} deliveries`);
  } finally {
    registry.close();
  }
});
