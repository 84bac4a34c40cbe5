/**
 * The pure parts of the 1.0 executor, without a server: retry arithmetic, URI templates,
 * `$secrets` splitting, error filters (standard types under every spelling), event filters.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { initExpressions } from '../../../../src/expr';
import { mayRetry, retryDelayMs } from '../../../../src/workflow/v1/retry';
import { expandUriTemplate, UriTemplateError } from '../../../../src/workflow/v1/uri-template';
import { splitSecrets } from '../../../../src/workflow/v1/secrets';
import { matchesFilter, standardName, WorkflowError } from '../../../../src/workflow/v1/errors';
import { filterMatches, fixCorrelation } from '../../../../src/workflow/v1/events';
import type { Json } from '../../../../src/common/model';

test('retry delays: constant, linear, exponential, jitter; limits', () => {
  const d = { delay: { seconds: 2 } };
  assert.deepEqual([1, 2, 3].map((n) => retryDelayMs({ ...d, backoff: { constant: {} } }, n)), [2000, 2000, 2000]);
  assert.deepEqual([1, 2, 3].map((n) => retryDelayMs({ ...d, backoff: { linear: {} } }, n)), [2000, 4000, 6000]);
  assert.deepEqual([1, 2, 3].map((n) => retryDelayMs({ ...d, backoff: { exponential: {} } }, n)), [2000, 4000, 8000]);
  assert.equal(retryDelayMs({ ...d, jitter: { from: 'PT1S', to: 'PT3S' } }, 1, () => 0.5), 4000);
  assert.equal(retryDelayMs({}, 1), 1000);
  assert.equal(mayRetry({ limit: { attempt: { count: 2 } } }, 2, 0), true);
  assert.equal(mayRetry({ limit: { attempt: { count: 2 } } }, 3, 0), false);
  assert.equal(mayRetry({ limit: { duration: 'PT1M' } }, 9, 60_000), false);
});

test('URI templates: top-level properties verbatim, encoded, empty when missing, non-scalars refused', () => {
  assert.equal(expandUriTemplate('https://x/pet/{petId}?s={status}&m={missing}', { petId: 1, status: 'a b' }), 'https://x/pet/1?s=a%20b&m=');
  assert.equal(expandUriTemplate('https://x/{pet.id}', { 'pet.id': 'p', pet: { id: 'no' } }), 'https://x/p');
  assert.throws(() => expandUriTemplate('https://x/{pet}', { pet: { id: 1 } }), UriTemplateError);
});

test('$secrets strings are taken out of call arguments, by pointer', () => {
  const r = splitSecrets({ endpoint: 'https://x', headers: { authorization: '${ "Bearer " + $secrets.token }', 'a/b': '${ $secrets.x }' }, list: ['${ $secrets.y }'] });
  assert.deepEqual(r.value, { endpoint: 'https://x', headers: { authorization: null, 'a/b': null }, list: [null] });
  assert.deepEqual(Object.keys(r.secrets), ['/headers/authorization', '/headers/a~1b', '/list/0']);
});

test('error filters: every property given; standard types under all three spellings', () => {
  const e = WorkflowError.standard('communication', '/do/0/x', 'down', 404).problem;
  assert.equal(standardName(e.type), 'communication');
  for (const type of ['https://serverlessworkflow.io/spec/1.0.0/errors/communication', 'https://open-workflow-specification.org/spec/1.0.0/errors/communication', 'https://serverlessworkflow.io/dsl/errors/types/communication']) {
    assert.ok(matchesFilter(e, { type, status: 404 }), type);
  }
  assert.ok(!matchesFilter(e, { type: 'https://serverlessworkflow.io/spec/1.0.0/errors/timeout' }));
  assert.ok(!matchesFilter(e, { status: 503 }));
  assert.ok(matchesFilter(e, { instance: '/do/0/x', details: 'down' }));
});

test('event filters: literals, regular expressions, expressions, objects; correlation fixed by the first event', async () => {
  await initExpressions();
  const scope = { variables: {} };
  const ev = (type: string, data: Json, extra: Record<string, Json> = {}) => ({ specversion: '1.0', id: '1', source: 's', type, data, ...extra });
  assert.ok(filterMatches({ with: { type: 'com.x.created' } }, ev('com.x.created', null), scope, {}, {}));
  assert.ok(filterMatches({ with: { type: 'com\\.x\\..*' } }, ev('com.x.deleted', null), scope, {}, {}));
  assert.ok(!filterMatches({ with: { type: 'com.x.created' } }, ev('com.x.createdX', null), scope, {}, {}));
  assert.ok(filterMatches({ with: { data: '${ .t > 38 }' } }, ev('v', { t: 39 }), scope, {}, {}));
  assert.ok(!filterMatches({ with: { data: '${ .t > 38 }' } }, ev('v', { t: 36 }), scope, {}, {}));
  assert.ok(filterMatches({ with: { data: { room: 'r1' } } }, ev('v', { room: 'r1', t: 1 }), scope, {}, {}));
  const correlation: Record<string, Json> = {};
  const f = { with: { type: 'v' }, correlate: { room: { from: '.room' } } };
  assert.ok(filterMatches(f, ev('v', null, { room: 'a' }), scope, correlation, {}));
  fixCorrelation(f, ev('v', null, { room: 'a' }), scope, correlation);
  assert.ok(!filterMatches(f, ev('v', null, { room: 'b' }), scope, correlation, {}));
  assert.ok(filterMatches(f, ev('v', null, { room: 'a' }), scope, correlation, {}));
  assert.ok(!filterMatches(f, ev('v', null, { room: 'a' }), scope, {}, { room: 'c' }));
});
