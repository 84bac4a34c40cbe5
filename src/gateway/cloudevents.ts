/**
 * CloudEvents in, checked strictly: the HTTP binding's three modes (binary, structured, batch)
 * and plain attribute objects (what the MQTT binding yields) become CloudEventJson, or an
 * EventProblem that says what is wrong and where (which header, which batch entry).
 *
 * Strict on purpose: the SDK's parser fills in what is missing (a random `id`, the current
 * `time`, `specversion` 1.0), so a sender's mistake would silently become a different event.
 * Here a missing or empty required attribute is an error, only CloudEvents 1.0 is accepted, and
 * the SDK's own schema (`new CloudEvent(..., true)`) then checks formats and extension names.
 * Nothing is added to the event: the workflow sees the attributes that were sent.
 */
import { CloudEvent, ValidationError } from 'cloudevents';
import type { CloudEventJson } from '../common/contracts';
import { errorClass, SwflowError } from '../common/errors';

/** A request that is not (only) valid CloudEvents: the HTTP status and the reason. */
export class EventProblem extends SwflowError {
  static {
    errorClass(this, 'EventProblem');
  }

  constructor(
    readonly status: 400 | 413 | 415,
    message: string,
  ) {
    super(message);
  }
}

export const MIME_STRUCTURED = 'application/cloudevents+json';
export const MIME_BATCH = 'application/cloudevents-batch+json';
const REQUIRED = ['id', 'source', 'type'] as const;
const STRING_ATTRIBUTES = ['id', 'source', 'type', 'subject', 'time', 'datacontenttype', 'dataschema'];
/** CloudEvents 1.0: "lower-case letters ('a' to 'z') or digits ('0' to '9')". */
const ATTRIBUTE_NAME = /^[a-z0-9]+$/;

/** The media type of a Content-Type header, lower-cased, without parameters. */
export function mediaType(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0].trim().toLowerCase();
}

const isJsonMedia = (m: string) => m === 'application/json' || m.endsWith('+json') || m === 'text/json';

/**
 * A CloudEvent given as a plain object of attributes (structured JSON, a batch entry, or the
 * binding's decoded headers plus data). Throws a 400 EventProblem naming every problem found.
 */
export function checkEvent(raw: unknown): CloudEventJson {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw new EventProblem(400, `a CloudEvent is a JSON object, got ${describe(raw)}`);
  const e = raw as Record<string, unknown>;
  const problems: string[] = [];
  if (e.specversion === undefined || e.specversion === '') problems.push("'specversion' is missing");
  else if (e.specversion !== '1.0') problems.push(`'specversion' must be "1.0" (got ${JSON.stringify(e.specversion)})`);
  for (const k of REQUIRED) {
    if (e[k] === undefined || e[k] === null) problems.push(`'${k}' is missing`);
    else if (typeof e[k] !== 'string') problems.push(`'${k}' must be a string (got ${describe(e[k])})`);
    else if (e[k] === '') problems.push(`'${k}' is empty`);
  }
  for (const k of STRING_ATTRIBUTES) {
    if (!(REQUIRED as readonly string[]).includes(k) && e[k] !== undefined && (typeof e[k] !== 'string' || e[k] === '')) problems.push(`'${k}' must be a non-empty string (got ${describe(e[k])})`);
  }
  if (e.data !== undefined && e.data_base64 !== undefined) problems.push("'data' and 'data_base64' are both given");
  if (e.data_base64 !== undefined && (typeof e.data_base64 !== 'string' || !/^[A-Za-z0-9+/]*={0,2}$/.test(e.data_base64))) problems.push("'data_base64' is not base64");
  for (const [k, v] of Object.entries(e)) {
    if (k === 'data' || k === 'data_base64') continue;
    if (!ATTRIBUTE_NAME.test(k)) problems.push(`attribute name '${k.slice(0, 40)}' is invalid (lower-case letters and digits only)`);
    else if (v !== null && typeof v === 'object') problems.push(`attribute '${k}' must be a string, number or boolean (got ${describe(v)})`);
  }
  if (problems.length) throw new EventProblem(400, `not a valid CloudEvent: ${problems.join('; ')}`);
  try {
    // The SDK's schema: time (RFC 3339), source/dataschema (URI), extension values.
    new CloudEvent(e as any, true);
  } catch (err) {
    throw new EventProblem(400, `not a valid CloudEvent: ${sdkProblems(err)}`);
  }
  return e as unknown as CloudEventJson;
}

function sdkProblems(err: unknown): string {
  if (err instanceof ValidationError && Array.isArray(err.errors) && err.errors.length) {
    return err.errors.map((p: any) => (typeof p === 'string' ? p : `${p.instancePath ? `${p.instancePath.replace(/^\//, '')} ` : ''}${p.message}`)).join('; ');
  }
  return String((err as Error).message).split('\n')[0];
}

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'object') return 'an object';
  if (typeof v === 'string') return v === '' ? 'an empty string' : 'a string';
  return `${typeof v} ${String(v).slice(0, 20)}`;
}

/** UTF-8 text, or a 400: a CloudEvent in JSON is text. */
function utf8(body: Buffer, what: string): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(body);
  } catch {
    throw new EventProblem(400, `${what} is not valid UTF-8`);
  }
}

function parseJson(body: Buffer, what: string): unknown {
  const text = utf8(body, what);
  if (!text.trim()) throw new EventProblem(400, `${what} is empty`);
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new EventProblem(400, `${what} is not valid JSON: ${(err as Error).message.slice(0, 200)}`);
  }
}

export interface HttpEvents {
  mode: 'binary' | 'structured' | 'batch';
  events: CloudEventJson[];
}

/**
 * The CloudEvents of an HTTP request (HTTP protocol binding 1.0). A batch is all or nothing:
 * when any entry is not a valid CloudEvent the whole request is refused, naming each bad
 * entry, so a sender never has to work out which half of a batch was taken.
 */
export function eventsFromHttp(headers: Record<string, string | string[] | undefined>, body: Buffer, opts: { maxBatch?: number } = {}): HttpEvents {
  const media = mediaType(header(headers, 'content-type'));
  if (media === MIME_BATCH) {
    const list = parseJson(body, 'the batch');
    if (!Array.isArray(list)) throw new EventProblem(400, `a batch (${MIME_BATCH}) is a JSON array of CloudEvents, got ${describe(list)}`);
    if (!list.length) throw new EventProblem(400, 'the batch is empty');
    const max = opts.maxBatch ?? 100;
    if (list.length > max) throw new EventProblem(413, `the batch has ${list.length} events; at most ${max} are taken at once`);
    const events: CloudEventJson[] = [];
    const bad: string[] = [];
    list.forEach((entry, i) => {
      try {
        events.push(checkEvent(entry));
      } catch (err) {
        bad.push(`entry ${i}${entryId(entry)}: ${(err as Error).message}`);
      }
    });
    if (bad.length) throw new EventProblem(400, `the batch was refused, nothing was delivered: ${bad.length} of ${list.length} entries are invalid: ${bad.slice(0, 20).join(' | ')}${bad.length > 20 ? ' | ...' : ''}`);
    return { mode: 'batch', events };
  }
  if (media === MIME_STRUCTURED) return { mode: 'structured', events: [structuredEvent(body)] };
  if (media.startsWith('application/cloudevents')) throw new EventProblem(415, `content type ${media} is not supported: structured CloudEvents are ${MIME_STRUCTURED}, batches ${MIME_BATCH}`);
  const ce = Object.keys(headers).filter((h) => h.toLowerCase().startsWith('ce-'));
  if (!ce.length) {
    throw new EventProblem(415, `not a CloudEvent: no ce-* headers (binary mode) and content type ${media ? `'${media}'` : 'missing'} is neither ${MIME_STRUCTURED} nor ${MIME_BATCH}`);
  }
  return { mode: 'binary', events: [checkEvent(binaryAttributes(headers, ce, body))] };
}

function entryId(entry: unknown): string {
  const id = entry && typeof entry === 'object' ? (entry as Record<string, unknown>).id : undefined;
  return typeof id === 'string' && id ? ` (id ${JSON.stringify(id.slice(0, 60))})` : '';
}

function header(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v.join(',') : v;
}

/** Binary mode: every `ce-<name>` header is attribute `<name>` (percent-decoded), the body is `data`. */
function binaryAttributes(headers: Record<string, string | string[] | undefined>, names: string[], body: Buffer): Record<string, unknown> {
  const attrs: Record<string, unknown> = {};
  for (const h of names) {
    const raw = header(headers, h) ?? '';
    try {
      attrs[h.toLowerCase().slice(3)] = decodeURIComponent(raw);
    } catch {
      throw new EventProblem(400, `header ${h} is not valid percent-encoding`);
    }
  }
  return withData(attrs, header(headers, 'content-type'), body);
}

/**
 * A binary-mode event's data: the content type becomes `datacontenttype`; a JSON body is parsed
 * (a broken one is a 400), text stays text, anything else is carried as `data_base64`.
 */
export function withData(attrs: Record<string, unknown>, contentType: string | undefined, body: Buffer): Record<string, unknown> {
  const media = mediaType(contentType);
  if (contentType) attrs.datacontenttype = contentType;
  if (body.length) {
    if (isJsonMedia(media)) attrs.data = parseJson(body, 'the event data (content type JSON)');
    else if (media.startsWith('text/') || media === 'application/xml') attrs.data = utf8(body, 'the event data');
    else attrs.data_base64 = body.toString('base64');
  }
  return attrs;
}

/** A structured-mode event: one JSON object. */
export function structuredEvent(body: Buffer): CloudEventJson {
  return checkEvent(parseJson(body, 'the structured CloudEvent'));
}
