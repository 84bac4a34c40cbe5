/**
 * The CloudEvents Kafka protocol binding (src/kafka/binding.ts) on its own: binary mode (`ce_*`
 * headers, `content-type` as datacontenttype) and structured mode, every kind of data, the
 * refusals naming what is wrong, `partitionkey` as the record key, and round trips.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EventProblem } from '../../src/gateway/cloudevents';
import { eventFromKafka, recordFromEvent, textHeaders } from '../../src/kafka/binding';

const headers = (o: Record<string, string>) => new Map(Object.entries(o));
const CE = { ce_specversion: '1.0', ce_id: 'k-1', ce_source: 'shop', ce_type: 'order.placed' };
const refusal = (f: () => unknown): EventProblem => {
  try {
    f();
  } catch (err) {
    assert.ok(err instanceof EventProblem, String(err));
    return err;
  }
  return assert.fail('expected a refusal');
};

test('binary mode: ce_* headers are the attributes, content-type the datacontenttype, the value the data (JSON, text, bytes, none)', () => {
  const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
  assert.deepEqual(eventFromKafka({ value: Buffer.from('{"a":1}'), headers: headers({ ...CE, 'content-type': 'application/json', ce_traceparent: traceparent, ce_orderid: '42' }) }), {
    specversion: '1.0', id: 'k-1', source: 'shop', type: 'order.placed', traceparent, orderid: '42', datacontenttype: 'application/json', data: { a: 1 },
  });
  assert.deepEqual(eventFromKafka({ value: Buffer.from('hello'), headers: headers({ ...CE, 'content-type': 'text/plain' }) }).data, 'hello');
  assert.deepEqual(eventFromKafka({ value: Buffer.from([0, 1, 2, 255]), headers: headers({ ...CE, 'content-type': 'application/octet-stream' }) }).data_base64, 'AAEC/w==');
  const empty = eventFromKafka({ value: null, headers: headers(CE) });
  assert.equal('data' in empty || 'data_base64' in empty, false);
  // Header keys are bytes on the wire: any case is read.
  assert.equal(eventFromKafka({ value: null, headers: textHeaders(new Map([[Buffer.from('CE_ID'), Buffer.from('x')], [Buffer.from('ce_specversion'), Buffer.from('1.0')], [Buffer.from('ce_source'), Buffer.from('s')], [Buffer.from('ce_type'), Buffer.from('t')]])) }).id, 'x');
  console.log('kafka binding: binary mode read with JSON, text, bytes and no data; ce_traceparent kept as the traceparent attribute');
});

test('structured mode: the value is the event JSON; refusals name what is wrong (not JSON, a missing attribute, not a CloudEvent, batches)', () => {
  const e = eventFromKafka({ value: Buffer.from(JSON.stringify({ specversion: '1.0', id: 's-1', source: 'shop', type: 't', data: { x: 1 } })), headers: headers({ 'content-type': 'application/cloudevents+json; charset=utf-8' }) });
  assert.deepEqual(e, { specversion: '1.0', id: 's-1', source: 'shop', type: 't', data: { x: 1 } });
  const cases: [string, () => unknown, number, RegExp][] = [
    ['not JSON', () => eventFromKafka({ value: Buffer.from('{not json'), headers: headers({ 'content-type': 'application/cloudevents+json' }) }), 400, /not valid JSON/],
    ['structured without type', () => eventFromKafka({ value: Buffer.from('{"specversion":"1.0","id":"2","source":"s"}'), headers: headers({ 'content-type': 'application/cloudevents+json' }) }), 400, /'type' is missing/],
    ['binary without type', () => eventFromKafka({ value: Buffer.from('{}'), headers: headers({ ce_specversion: '1.0', ce_id: '1', ce_source: 's' }) }), 400, /'type' is missing/],
    ['binary without specversion', () => eventFromKafka({ value: null, headers: headers({ ce_id: '1', ce_source: 's', ce_type: 't' }) }), 400, /'specversion' is missing/],
    ['plain JSON', () => eventFromKafka({ value: Buffer.from('{"a":1}'), headers: headers({ 'content-type': 'application/json' }) }), 415, /no ce_\* headers .*'application\/json'/],
    ['no headers at all', () => eventFromKafka({ value: Buffer.from('x'), headers: new Map() }), 415, /content type missing/],
    ['a batch', () => eventFromKafka({ value: Buffer.from('[]'), headers: headers({ 'content-type': 'application/cloudevents-batch+json' }) }), 415, /batch\+json is not supported/],
  ];
  for (const [what, f, status, message] of cases) {
    const err = refusal(f);
    assert.equal(err.status, status, what);
    assert.match(err.message, message, what);
  }
  console.log(`kafka binding: structured mode read; ${cases.length} malformed records refused with their reason`);
});

test('writing: partitionkey is the record key, else the key given; binary and structured round trips', () => {
  const event = { specversion: '1.0', id: 'w-1', source: 'run', type: 't', partitionkey: 'order-7', data: { y: 2 } } as const;
  const binary = recordFromEvent(event, 'binary', 'run-1');
  assert.equal(binary.key?.toString(), 'order-7');
  assert.equal(binary.headers.get('ce_partitionkey'), 'order-7');
  assert.equal(binary.headers.get('content-type'), 'application/json');
  assert.deepEqual(eventFromKafka(binary), { ...event, datacontenttype: 'application/json' });
  const { partitionkey: _, ...unkeyed } = event;
  const structured = recordFromEvent(unkeyed, 'structured', 'run-1');
  assert.equal(structured.key?.toString(), 'run-1');
  assert.match(structured.headers.get('content-type') ?? '', /^application\/cloudevents\+json/);
  assert.deepEqual(eventFromKafka(structured), unkeyed);
  assert.equal(recordFromEvent(unkeyed, 'binary').key, undefined);
  const text = { specversion: '1.0', id: 'w-2', source: 'run', type: 't', datacontenttype: 'text/plain', data: 'hi' };
  assert.deepEqual(eventFromKafka(recordFromEvent(text, 'binary')), text);
  const bytes = { specversion: '1.0', id: 'w-3', source: 'run', type: 't', datacontenttype: 'application/octet-stream', data_base64: 'AQID' };
  const r = recordFromEvent(bytes, 'binary');
  assert.deepEqual([...r.value!], [1, 2, 3]);
  assert.deepEqual(eventFromKafka(r), bytes);
  assert.equal(recordFromEvent({ specversion: '1.0', id: 'w-4', source: 'run', type: 't' }, 'binary').value, null);
  console.log('kafka binding: partitionkey → key, run id otherwise; JSON, text and bytes round-trip in binary and structured mode');
});
