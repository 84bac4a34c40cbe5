/**
 * `swflow codec-server`: Temporal's codec server over the keys of SWFLOW_CODEC_KEYS /
 * SWFLOW_CODEC_KEY_FILE, so the Web UI (Settings → Codec Server, or the UI server's
 * `codec.endpoint`) and `temporal workflow show --codec-endpoint` show decrypted payloads, and
 * payloads held in the payload store (SWFLOW_PAYLOAD_STORE) read back: a value over the display
 * limit as a link to `GET /payloads/<key>`. See docs/encryption.md, docs/large-data.md.
 */
import type { Command } from 'commander';
import { keyringFromEnv, payloadCodec } from '../codec';
import { DEFAULT_DISPLAY_LIMIT, startCodecServer } from '../codec/server';
import { parseSize, payloadSettings } from '../payloads/config';

interface CodecServerCommandOptions {
  host: string;
  port: string;
  token?: string;
  corsOrigin?: string[];
  allowAnonymous?: boolean;
  displayLimit?: string;
  publicUrl?: string;
}

export function register(program: Command): void {
  program
    .command('codec-server')
    .description('Serve Temporal\'s codec server protocol (POST /decode, /encode) with swflow\'s payload keys, for the Web UI and `temporal --codec-endpoint`')
    .option('--host <host>', 'interface to listen on', '127.0.0.1')
    .option('-p, --port <port>', 'port to listen on', '8888')
    .option('--token <token>', 'bearer token callers must present (default $SWFLOW_CODEC_TOKEN; prefer the variable: flags show in ps)')
    .option('--cors-origin <origins...>', 'origins allowed by CORS, e.g. the Web UI http://localhost:8233 (default $SWFLOW_CODEC_CORS_ORIGINS, comma-separated)')
    .option('--display-limit <size>', 'a stored value larger than this is shown as a link to GET /payloads/<key> (bytes, or 1MiB; default $SWFLOW_CODEC_DISPLAY_LIMIT, else 1MiB)')
    .option('--public-url <url>', 'this server\'s address as callers reach it, for those links (default $SWFLOW_PAYLOAD_PUBLIC_URL, else the listening address)')
    .option('--allow-anonymous', 'serve without a token (anyone who reaches the port reads every payload)')
    .action((opts: CodecServerCommandOptions) => run(opts));
}

async function run(opts: CodecServerCommandOptions): Promise<void> {
  const say = (m: string) => console.error(`[swflow codec-server] ${m}`);
  const keys = keyringFromEnv();
  const { store } = payloadSettings();
  if (!keys && !store) throw new Error('no codec keys: set SWFLOW_CODEC_KEYS=<id>:<base64 32 bytes>,... or SWFLOW_CODEC_KEY_FILE (or SWFLOW_PAYLOAD_STORE, to serve stored payloads only)');
  const token = opts.token ?? (process.env.SWFLOW_CODEC_TOKEN || undefined);
  if (!token && !opts.allowAnonymous) throw new Error('the codec server decrypts every payload for whoever calls it: give --token (or SWFLOW_CODEC_TOKEN), or --allow-anonymous for a private machine');
  const port = Number(opts.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--port must be a port number (got ${JSON.stringify(opts.port)})`);
  const corsOrigins = opts.corsOrigin ?? (process.env.SWFLOW_CODEC_CORS_ORIGINS ?? '').split(',').map((o) => o.trim()).filter(Boolean);
  const limitText = opts.displayLimit ?? (process.env.SWFLOW_CODEC_DISPLAY_LIMIT || undefined);
  const displayLimit = limitText ? parseSize(limitText, opts.displayLimit ? '--display-limit' : 'SWFLOW_CODEC_DISPLAY_LIMIT') : DEFAULT_DISPLAY_LIMIT;
  const publicUrl = opts.publicUrl ?? (process.env.SWFLOW_PAYLOAD_PUBLIC_URL || undefined);
  if (publicUrl && !/^https?:\/\/[^/]/.test(publicUrl)) throw new Error(`--public-url / SWFLOW_PAYLOAD_PUBLIC_URL must be an http(s) URL (got ${JSON.stringify(publicUrl)})`);
  const server = await startCodecServer({ codec: keys ? payloadCodec(keys) : undefined, store, displayLimit, publicUrl, host: opts.host, port, token, corsOrigins, log: say });
  const keyText = keys ? `keys ${[...keys.byId.keys()].join(', ')}; current ${keys.current.id}` : 'no keys';
  const storeText = store ? `; payload store ${store.location}, values over ${displayLimit} bytes as links` : '';
  say(`listening on ${server.url} (${keyText}${token ? '; bearer token required' : '; NO authentication'}${corsOrigins.length ? `; CORS for ${corsOrigins.join(', ')}` : ''}${storeText})`);
  const stop = () => void server.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}
