/**
 * The 1.0 lifecycle `workflow.completed` event's `outputUri` (spec main branch): an output too
 * large to travel in a CloudEvent is stored in the payload store, as the SDK would store it
 * (JSON payload, encrypted by the codec when keys are set, same key for the same output), and
 * the event names it instead of carrying it. Applied by the `swflow.produceEvent` activity
 * (src/worker/activities/interpreter.ts): the workflow only schedules the event.
 */
import type { CloudEventJson } from '../common/contracts';
import type { Json } from '../common/model';
import { dataConverterOptions } from '../codec';
import { payloadSettings } from './config';
import { PayloadValues } from './values';

export const WORKFLOW_COMPLETED = 'io.serverlessworkflow.workflow.completed.v1';

/**
 * `event` with `data.output` replaced by `data.outputUri` when it is a completed event whose
 * serialized output is at least the payload threshold and a store is configured; else `event`.
 * The URI is `<SWFLOW_PAYLOAD_PUBLIC_URL>/payloads/<key>` (a codec server consumers reach) when
 * set, else the store's own URI of the key.
 */
export async function withOutputUri(event: CloudEventJson, env: NodeJS.ProcessEnv = process.env): Promise<CloudEventJson> {
  if (event.type !== WORKFLOW_COMPLETED) return event;
  const data = event.data;
  if (!data || typeof data !== 'object' || Array.isArray(data) || !('output' in data)) return event;
  const { store, threshold } = payloadSettings(env);
  if (!store) return event;
  if (Buffer.byteLength(JSON.stringify(data.output ?? null)) < threshold) return event;
  const key = await new PayloadValues(store, dataConverterOptions(env).dataConverter?.payloadCodecs ?? []).put(data.output);
  const base = env.SWFLOW_PAYLOAD_PUBLIC_URL?.trim().replace(/\/+$/, '');
  const { output: _output, ...rest } = data;
  return { ...event, data: { ...rest, outputUri: base ? `${base}/payloads/${key}` : store.uri(key) } satisfies Json };
}
