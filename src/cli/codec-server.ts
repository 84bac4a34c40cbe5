/**
 * `swflow codec-server`: Temporal's codec server over the keys of SWFLOW_CODEC_KEYS /
 * SWFLOW_CODEC_KEY_FILE, so the Web UI (Settings → Codec Server, or the UI server's
 * `codec.endpoint`) and `temporal workflow show --codec-endpoint` show decrypted payloads.
 * See docs/encryption.md.
 */
import type { Command } from 'commander';
import { keyringFromEnv, payloadCodec } from '../codec';
import { startCodecServer } from '../codec/server';

interface CodecServerCommandOptions {
  host: string;
  port: string;
  token?: string;
  corsOrigin?: string[];
  allowAnonymous?: boolean;
}

export function register(program: Command): void {
  program
    .command('codec-server')
    .description('Serve Temporal\'s codec server protocol (POST /decode, /encode) with swflow\'s payload keys, for the Web UI and `temporal --codec-endpoint`')
    .option('--host <host>', 'interface to listen on', '127.0.0.1')
    .option('-p, --port <port>', 'port to listen on', '8888')
    .option('--token <token>', 'bearer token callers must present (default $SWFLOW_CODEC_TOKEN; prefer the variable: flags show in ps)')
    .option('--cors-origin <origins...>', 'origins allowed by CORS, e.g. the Web UI http://localhost:8233 (default $SWFLOW_CODEC_CORS_ORIGINS, comma-separated)')
    .option('--allow-anonymous', 'serve without a token (anyone who reaches the port reads every payload)')
    .action((opts: CodecServerCommandOptions) => run(opts));
}

async function run(opts: CodecServerCommandOptions): Promise<void> {
  const say = (m: string) => console.error(`[swflow codec-server] ${m}`);
  const keys = keyringFromEnv();
  if (!keys) throw new Error('no codec keys: set SWFLOW_CODEC_KEYS=<id>:<base64 32 bytes>,... or SWFLOW_CODEC_KEY_FILE');
  const token = opts.token ?? (process.env.SWFLOW_CODEC_TOKEN || undefined);
  if (!token && !opts.allowAnonymous) throw new Error('the codec server decrypts every payload for whoever calls it: give --token (or SWFLOW_CODEC_TOKEN), or --allow-anonymous for a private machine');
  const port = Number(opts.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--port must be a port number (got ${JSON.stringify(opts.port)})`);
  const corsOrigins = opts.corsOrigin ?? (process.env.SWFLOW_CODEC_CORS_ORIGINS ?? '').split(',').map((o) => o.trim()).filter(Boolean);
  const server = await startCodecServer({ codec: payloadCodec(keys)!, host: opts.host, port, token, corsOrigins, log: say });
  say(`listening on ${server.url} (keys ${[...keys.byId.keys()].join(', ')}; current ${keys.current.id}${token ? '; bearer token required' : '; NO authentication'}${corsOrigins.length ? `; CORS for ${corsOrigins.join(', ')}` : ''})`);
  const stop = () => void server.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}
