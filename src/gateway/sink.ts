/**
 * Where produced events go out:
 * - an HTTP endpoint that takes CloudEvents (a broker's HTTP ingress, a Knative sink, another
 *   swflow's gateway): each event is POSTed in structured mode;
 * - a Kafka topic (`kafka://…`, ../kafka/sink.ts).
 * A write that fails (for HTTP: anything but a 2xx answer) throws, so the producing activity fails
 * and Temporal retries it (the interpreter gives it 5 attempts): a produced event is not dropped
 * because its receiver blinked; a receiver that stays down fails the run, naming the state and the
 * sink. eventSinks() builds the sinks of `--event-sink` / SWFLOW_EVENT_SINKS by scheme.
 */
import type { EventSink } from '../worker/activities/interpreter';
import { httpFetch } from '../adapter-sdk/http-client';
import { metrics } from '../metrics';
import { kafkaSink, redactKafkaUrl } from '../kafka/sink';

/** A sink URL as it may be shown: `user:password@` replaced by `***@`. */
export function redactSinkUrl(url: string): string {
  return redactKafkaUrl(url).replace(/^(https?:\/\/)[^@/]*@/i, '$1***@');
}

export function httpSink(url: string, opts: { timeoutMs?: number } = {}): EventSink {
  const shown = redactSinkUrl(url);
  const failed = (message: string) => {
    metrics()?.eventsProduced.inc({ sink: 'http', outcome: 'error' });
    return new Error(message);
  };
  return async (event) => {
    let res: Response;
    try {
      res = await httpFetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/cloudevents+json; charset=utf-8' },
        body: JSON.stringify(event),
        signal: AbortSignal.timeout(opts.timeoutMs ?? 10_000),
      });
    } catch (err) {
      throw failed(`event sink ${shown} is unreachable: ${(err as Error).message}`);
    }
    if (!res.ok) throw failed(`event sink ${shown} refused event ${event.type} (${event.id}): HTTP ${res.status} ${(await res.text()).slice(0, 500)}`);
    metrics()?.eventsProduced.inc({ sink: 'http', outcome: 'ok' });
  };
}

/** The sinks of a list of URLs, what to show of them, and how to close them (the Kafka producers) when the worker stops. */
export interface EventSinks {
  sinks: EventSink[];
  /** The URLs without credentials. */
  shown: string[];
  close(): Promise<void>;
}

/**
 * The sinks of `urls` (http(s)://… or kafka://…), checked now: a malformed URL or an unknown
 * scheme is an error naming `what` (the flag or variable it came from) and the URL (redacted).
 */
export function eventSinks(urls: string[], what = '--event-sink'): EventSinks {
  const closers: (() => Promise<void>)[] = [];
  const sinks = urls.map((url): EventSink => {
    const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(url)?.[1]?.toLowerCase();
    if (scheme === 'kafka') {
      const sink = kafkaSink(url, { what });
      closers.push(() => sink.close());
      return sink.send;
    }
    if (scheme === 'http' || scheme === 'https') {
      try {
        new URL(url);
      } catch {
        throw new Error(`${what}: ${redactSinkUrl(url)} is not a valid URL`);
      }
      return httpSink(url);
    }
    throw new Error(`${what}: ${redactSinkUrl(url)} is not an event sink: ${scheme ? `unknown scheme '${scheme}'` : 'no scheme'} (http://, https:// or kafka://host:port/<topic>)`);
  });
  return { sinks, shown: urls.map(redactSinkUrl), close: async () => void (await Promise.all(closers.map((c) => c()))) };
}

/** The sink URLs of a flag, else of SWFLOW_EVENT_SINKS (comma-separated; a Kafka sink's brokers are separated by commas too, so entries are split before each scheme). */
export function sinkUrls(flag: string[] | undefined, env: NodeJS.ProcessEnv = process.env): { urls: string[]; what: string } {
  if (flag?.length) return { urls: flag.flatMap(splitSinkList), what: '--event-sink' };
  return { urls: splitSinkList(env.SWFLOW_EVENT_SINKS ?? ''), what: 'SWFLOW_EVENT_SINKS' };
}

/** `a,b` → [a, b], keeping `kafka://h1:9092,h2:9092/topic` whole: a comma starts a new URL only before a `scheme://`. */
function splitSinkList(list: string): string[] {
  return list
    .split(/,(?=\s*[a-z][a-z0-9+.-]*:\/\/)/i)
    .map((u) => u.trim())
    .filter(Boolean);
}
