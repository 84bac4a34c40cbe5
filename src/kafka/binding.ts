/**
 * The CloudEvents Kafka protocol binding (1.0): a CloudEvent to a Kafka record and back, for the
 * gateway's consumer (../gateway/kafka.ts) and the Kafka event sink (./sink.ts).
 *
 * - Structured mode: header `content-type: application/cloudevents+json`, the value is the
 *   event's JSON.
 * - Binary mode: every attribute is a `ce_<name>` header (UTF-8), `content-type` is
 *   `datacontenttype`, the value is the data (a record with no value: an event with no data).
 * - Key: the sender's record key is kept as is. Sending, `partitionkey` (the Partitioning
 *   extension) is the key when the event has one, else the key the sink is given (the run id);
 *   receiving, the key is not turned into an attribute (the binding: a mapping must not add one).
 *
 * Reading is strict, like the HTTP and MQTT bindings (../gateway/cloudevents.ts): a missing
 * required attribute is an error naming it, never filled in.
 */
import type { CloudEventJson } from '../common/contracts';
import { checkEvent, EventProblem, mediaType, MIME_STRUCTURED, structuredEvent, withData } from '../gateway/cloudevents';

/** How an event is written to a record. */
export type KafkaMode = 'binary' | 'structured';

/** A Kafka record as the binding sees it: bytes, headers as text. */
export interface KafkaRecord {
  key?: Buffer;
  value?: Buffer | null;
  headers: Map<string, string>;
}

const CE_PREFIX = 'ce_';

/** Headers as text (Kafka header keys and values are bytes; the binding says UTF-8). */
export function textHeaders(headers: Map<Buffer | string, Buffer | string | undefined> | undefined): Map<string, string> {
  const out = new Map<string, string>();
  for (const [k, v] of headers ?? []) out.set(k.toString().toLowerCase(), v === undefined ? '' : v.toString('utf8'));
  return out;
}

/**
 * The CloudEvent of a Kafka record: structured when `content-type` is a CloudEvents media type,
 * else binary (`ce_*` headers). Throws an EventProblem that says why a record is not a CloudEvent.
 */
export function eventFromKafka(record: KafkaRecord): CloudEventJson {
  const contentType = record.headers.get('content-type');
  const media = mediaType(contentType);
  const value = record.value ?? Buffer.alloc(0);
  if (media.startsWith('application/cloudevents')) {
    if (media !== MIME_STRUCTURED) throw new EventProblem(415, `content type ${media} is not supported: structured CloudEvents over Kafka are ${MIME_STRUCTURED}`);
    return structuredEvent(value);
  }
  const attributes: Record<string, unknown> = {};
  for (const [name, v] of record.headers) if (name.startsWith(CE_PREFIX)) attributes[name.slice(CE_PREFIX.length)] = v;
  if (!Object.keys(attributes).length) {
    throw new EventProblem(415, `not a CloudEvent: no ce_* headers (binary mode) and content type ${media ? `'${media}'` : 'missing'} is not ${MIME_STRUCTURED} (structured mode)`);
  }
  return checkEvent(withData(attributes, contentType, value));
}

/** The record of an event: its mode's headers and value; the key is `partitionkey`, else `key`. */
export function recordFromEvent(event: CloudEventJson, mode: KafkaMode, key?: string): { key?: Buffer; value: Buffer | null; headers: Map<string, string> } {
  const partitionKey = (event as Record<string, unknown>).partitionkey;
  const recordKey = partitionKey !== undefined && partitionKey !== '' ? String(partitionKey) : key;
  const keyBytes = recordKey !== undefined ? { key: Buffer.from(recordKey, 'utf8') } : {};
  if (mode === 'structured') {
    return { ...keyBytes, value: Buffer.from(JSON.stringify(event), 'utf8'), headers: new Map([['content-type', `${MIME_STRUCTURED}; charset=utf-8`]]) };
  }
  const headers = new Map<string, string>();
  const { data, data_base64: dataBase64, datacontenttype, ...attributes } = event as Record<string, unknown>;
  for (const [name, v] of Object.entries(attributes)) if (v !== undefined && v !== null) headers.set(CE_PREFIX + name, String(v));
  let value: Buffer | null = null;
  let contentType = typeof datacontenttype === 'string' ? datacontenttype : undefined;
  if (typeof dataBase64 === 'string') value = Buffer.from(dataBase64, 'base64');
  else if (data !== undefined) {
    const media = mediaType(contentType);
    if (typeof data === 'string' && contentType && !(media === 'application/json' || media.endsWith('+json'))) value = Buffer.from(data, 'utf8');
    else {
      value = Buffer.from(JSON.stringify(data), 'utf8');
      contentType ??= 'application/json';
    }
  }
  if (contentType) headers.set('content-type', contentType);
  return { ...keyBytes, value, headers };
}
