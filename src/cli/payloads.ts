/**
 * `swflow payloads gc|get|ls`: the claim-check payload store (SWFLOW_PAYLOAD_STORE, src/payloads)
 * from the command line: remove the payloads no existing run needs, print one decoded, count them.
 * The Temporal server is TEMPORAL_ADDRESS (default 127.0.0.1:7233, as `npm start` runs it).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { Connection } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { msToNumber } from '@temporalio/common/lib/time';
import { connectTo, targetFromEnv } from '../client/connection';
import { ENCODING_ENCRYPTED, payloadCodec } from '../codec';
import { PayloadValues } from '../payloads/values';
import { formatBytes } from '../common/payload-limit';
import { FilePayloadStore } from '../payloads/file-store';
import { payloadSettings } from '../payloads/config';
import { describeGc, gcPayloads } from '../payloads/gc';
import { checkKey, redactUrl, type PayloadStore } from '../payloads/store';
import { dataDir } from '../platform/paths';

const NO_STORE = 'no payload store is configured: set SWFLOW_PAYLOAD_STORE to the store the workers use (file:///dir or a path, postgresql://…, s3://bucket/prefix; `swflow start` keeps its payloads in <data>/payloads)';

/**
 * This process's store, or a clear error. Unset (not `none`) against `swflow start`'s own server
 * (no TEMPORAL_ADDRESS): its store, <data>/payloads, when there is one.
 */
function configuredStore(): PayloadStore {
  const env = process.env;
  const embedded = join(dataDir(), 'payloads');
  if (!env.SWFLOW_PAYLOAD_STORE && !env.TEMPORAL_ADDRESS && existsSync(embedded)) return payloadSettings({ ...env, SWFLOW_PAYLOAD_STORE: embedded }).store!;
  const store = payloadSettings().store;
  if (!store) throw new Error(NO_STORE);
  return store;
}

/** `1h`, `30m`, `0s`, `2d` → ms. */
function parseAge(text: string): number {
  let ms: number;
  try {
    ms = msToNumber(text as Parameters<typeof msToNumber>[0]);
  } catch {
    throw new Error(`--min-age ${JSON.stringify(text)} is not a duration (e.g. 1h, 30m, 0s, 2d)`);
  }
  if (!Number.isFinite(ms) || ms < 0) throw new Error(`--min-age ${JSON.stringify(text)} must be a duration of zero or more (e.g. 1h, 30m, 0s)`);
  return ms;
}

/**
 * The store and key a `get` argument names: a key (`sha256-…`) in the configured store, or a URI
 * (`store.uri(key)`, e.g. a lifecycle event's `outputUri`): the configured store's, or a file
 * URL of any payload directory.
 */
function locate(arg: string): { store: PayloadStore; key: string } {
  if (/^sha256-/.test(arg)) return { store: configuredStore(), key: checkKey(arg) };
  const key = /sha256-[0-9a-f]{64}(?=$|[?#])/.exec(arg.replace(/\/+$/, ''))?.[0];
  if (!key) throw new Error(`${JSON.stringify(arg.slice(0, 200))} is neither a payload key (sha256-<64 hex digits>) nor a payload store URI ending with one`);
  const configured = (() => {
    try {
      return configuredStore();
    } catch {
      return undefined;
    }
  })();
  if (configured && configured.uri(key) === arg) return { store: configured, key };
  if (arg.startsWith('file:')) {
    // <dir>/<2 hex>/<key>: the file store of <dir>.
    const dir = fileURLToPath(new URL('..', new URL(arg)));
    return { store: new FilePayloadStore(dir), key };
  }
  throw new Error(`${redactUrl(arg)} is not in the configured payload store (${configured ? configured.location : 'none'}): set SWFLOW_PAYLOAD_STORE to the store it names`);
}

/** A stored payload's value: read back and decoded as the codec server and run page do (values.ts), then the JSON converter. */
async function decodeStored(store: PayloadStore, key: string): Promise<unknown> {
  const payload = await new PayloadValues(store, payloadCodec() ? [payloadCodec()!] : []).get(key);
  const encoding = payload.metadata?.encoding ? Buffer.from(payload.metadata.encoding).toString() : '';
  if (encoding === ENCODING_ENCRYPTED) throw new Error(`payload ${key} is encrypted: set SWFLOW_CODEC_KEYS (or SWFLOW_CODEC_KEY_FILE) to the codec keys of the workers`);
  return defaultPayloadConverter.fromPayload(payload);
}

function age(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 120) return `${s}s`;
  if (s < 7200) return `${Math.round(s / 60)}m`;
  if (s < 172800) return `${Math.round(s / 3600)}h`;
  return `${Math.round(s / 86400)}d`;
}

export function register(program: Command): void {
  const payloads = program.command('payloads').description('The payload store (SWFLOW_PAYLOAD_STORE): payloads over the threshold kept outside the history');
  payloads
    .command('gc')
    .description('Remove the stored payloads no existing run or schedule of the namespace refers to')
    .option('--dry-run', 'report what would be removed, remove nothing')
    .option('--min-age <duration>', 'keep payloads put less than this long ago (1h, 30m, 0s)', '1h')
    .option('--namespace <namespace...>', 'the namespaces whose runs use the store, all scanned (default $TEMPORAL_NAMESPACE or default)')
    .option('--json', 'print the report as JSON')
    .addHelpText(
      'after',
      `
Mark and sweep: every execution the namespace still has (open and closed, until its retention)
is read as raw history, with open runs' pending state and every schedule's action; a stored
payload none of them refers to and put longer than --min-age ago is removed (so are temporary
files a crash left). A failed read stops the gc before it removes anything.

What it cannot see:
  - a reference held only by a request in flight (an activity result being completed, a start
    or signal on its way): --min-age (default 1h) must exceed how long that can take;
  - runs of a namespace not given to --namespace that share the store: name every namespace
    whose workers use the store (it would remove their payloads once old);
  - archived histories: their payloads go once their runs leave the namespace.
`,
    )
    .action(async (opts: { dryRun?: boolean; minAge: string; namespace?: string[]; json?: boolean }) => {
      const minAgeMs = parseAge(opts.minAge);
      const store = configuredStore();
      const target = targetFromEnv() ?? { address: '127.0.0.1:7233', namespace: process.env.TEMPORAL_NAMESPACE || 'default' };
      const namespaces = opts.namespace?.length ? [...new Set(opts.namespace)] : [target.namespace];
      const connection = await connectTo(target, (o) => Connection.connect(o));
      try {
        const report = await gcPayloads(connection, store, { namespaces, minAgeMs, dryRun: opts.dryRun });
        console.log(opts.json ? JSON.stringify(report, null, 2) : describeGc(report).join('\n'));
      } finally {
        await connection.close();
        await store.close();
      }
    });
  payloads
    .command('get <uriOrKey>')
    .description('Print a stored payload decoded (with the codec keys when configured) as JSON')
    .action(async (arg: string) => {
      const { store, key } = locate(arg);
      try {
        const value = await decodeStored(store, key);
        // A binary/plain payload (bytes) prints as base64, not as an object of byte indices.
        console.log(JSON.stringify(value instanceof Uint8Array ? { base64: Buffer.from(value).toString('base64') } : value, null, 2));
      } finally {
        await store.close();
      }
    });
  payloads
    .command('ls')
    .description('Count the stored payloads and their bytes')
    .option('-l, --long', 'each payload: key, bytes, age')
    .option('--json', 'print JSON')
    .action(async (opts: { long?: boolean; json?: boolean }) => {
      const store = configuredStore();
      try {
        const now = Date.now();
        const items: { key: string; size: number; createdAt: string }[] = [];
        let count = 0;
        let bytes = 0;
        for await (const p of store.list()) {
          count++;
          bytes += p.size;
          if (opts.long) {
            items.push({ key: p.key, size: p.size, createdAt: p.createdAt.toISOString() });
            if (!opts.json) console.log(`${p.key}  ${p.size}  ${age(now - p.createdAt.getTime())}`);
          }
        }
        if (opts.json) console.log(JSON.stringify({ store: store.location, count, bytes, ...(opts.long ? { payloads: items } : {}) }, null, 2));
        else console.log(`${count} payload(s), ${bytes} bytes (${formatBytes(bytes)}) in ${store.location}`);
      } finally {
        await store.close();
      }
    });
}
