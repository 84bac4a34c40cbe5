/**
 * Where produced events go out: an HTTP endpoint that takes CloudEvents (a broker's HTTP
 * ingress, a Knative sink, another swflow's gateway). Each event is POSTed in structured mode;
 * anything but a 2xx answer throws, so the producing activity fails and Temporal retries it (the
 * interpreter gives it 5 attempts): a produced event is not dropped because its receiver
 * blinked; a receiver that stays down fails the run, naming the state and the sink.
 */
import type { EventSink } from '../worker/activities/interpreter';
import { httpFetch } from '../adapter-sdk/http-client';

export function httpSink(url: string, opts: { timeoutMs?: number } = {}): EventSink {
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
      throw new Error(`event sink ${url} is unreachable: ${(err as Error).message}`);
    }
    if (!res.ok) throw new Error(`event sink ${url} refused event ${event.type} (${event.id}): HTTP ${res.status} ${(await res.text()).slice(0, 500)}`);
  };
}
