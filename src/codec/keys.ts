/**
 * Encryption keys of the payload codec, from the environment:
 *
 *   SWFLOW_CODEC_KEYS       `<id>:<base64 of 32 bytes>,...` (the first is the current key)
 *   SWFLOW_CODEC_KEY_FILE   a file of `<id>:<base64>` lines (first = current; `#` comments), or a
 *                           directory of files `<id>.key` each holding one base64 key (current: the
 *                           last name in sort order, e.g. date-named keys `2026-11.key`)
 *   SWFLOW_CODEC_CURRENT_KEY  the id of the key new payloads are encrypted with (overrides "first")
 *
 * Keys from SWFLOW_CODEC_KEYS come before the file's. Decryption accepts any known key, so a key
 * rotates by putting a new one first and keeping the old ones until no run needs them.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

export interface CodecKey {
  id: string;
  key: Buffer;
}

export interface CodecKeyring {
  /** The key new payloads are encrypted with. */
  current: CodecKey;
  /** Every known key by id (the current one included). */
  byId: Map<string, CodecKey>;
}

const KEY_ID = /^[A-Za-z0-9._-]{1,64}$/;

/** One key from its id and base64 text; `where` names its source in errors. */
export function parseKey(id: string, base64: string, where: string): CodecKey {
  if (!KEY_ID.test(id)) throw new Error(`${where}: key id ${JSON.stringify(id)} must be 1-64 letters, digits, '.', '_' or '-'`);
  const text = base64.trim();
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(text)) throw new Error(`${where}: key ${id} is not base64`);
  const key = Buffer.from(text, 'base64');
  if (key.length !== 32) throw new Error(`${where}: key ${id} is ${key.length} bytes; AES-256 needs 32 (make one with \`openssl rand -base64 32\`)`);
  return { id, key };
}

/** `<id>:<base64>` entries separated by commas or newlines. */
export function parseKeyList(text: string, where: string): CodecKey[] {
  const keys: CodecKey[] = [];
  text.split(/[,\n]/).forEach((raw, i) => {
    const entry = raw.trim();
    if (!entry || entry.startsWith('#')) return;
    const colon = entry.indexOf(':');
    if (colon < 0) throw new Error(`${where}: entry ${i + 1} is not <id>:<base64 key>`);
    keys.push(parseKey(entry.slice(0, colon).trim(), entry.slice(colon + 1), where));
  });
  return keys;
}

function keysFromPath(path: string): CodecKey[] {
  const where = `SWFLOW_CODEC_KEY_FILE=${path}`;
  let isDir: boolean;
  try {
    isDir = statSync(path).isDirectory();
  } catch (err) {
    throw new Error(`${where} cannot be read: ${(err as Error).message}`);
  }
  const keys = isDir
    ? readdirSync(path)
        .filter((n) => n.endsWith('.key'))
        .sort()
        .reverse()
        .map((n) => parseKey(n.slice(0, -'.key'.length), readFileSync(join(path, n), 'utf8'), `${where}/${n}`))
    : parseKeyList(readFileSync(path, 'utf8'), where);
  // Set but empty (e.g. a Kubernetes Secret without `<id>.key` entries): refusing beats running without the encryption asked for.
  if (keys.length === 0) throw new Error(`${where} holds no key (${isDir ? 'no <id>.key file in the folder' : 'no <id>:<base64> line'})`);
  return keys;
}

/** A keyring from keys in order (first = current unless `currentId` names another). */
export function keyring(keys: CodecKey[], currentId?: string): CodecKeyring {
  if (keys.length === 0) throw new Error('the payload codec needs at least one key');
  const byId = new Map<string, CodecKey>();
  for (const k of keys) {
    const seen = byId.get(k.id);
    if (seen && !seen.key.equals(k.key)) throw new Error(`codec key id ${k.id} is given twice with different keys`);
    if (!seen) byId.set(k.id, k);
  }
  const current = currentId ? byId.get(currentId) : keys[0];
  if (!current) throw new Error(`SWFLOW_CODEC_CURRENT_KEY=${currentId} names no known key (known: ${[...byId.keys()].join(', ')})`);
  return { current, byId };
}

/** The keyring the environment configures, or undefined when no key is configured (no encryption). */
export function keyringFromEnv(env: NodeJS.ProcessEnv = process.env): CodecKeyring | undefined {
  const keys: CodecKey[] = [];
  if (env.SWFLOW_CODEC_KEYS?.trim()) keys.push(...parseKeyList(env.SWFLOW_CODEC_KEYS, 'SWFLOW_CODEC_KEYS'));
  if (env.SWFLOW_CODEC_KEY_FILE?.trim()) keys.push(...keysFromPath(env.SWFLOW_CODEC_KEY_FILE.trim()));
  if (keys.length === 0) {
    if (env.SWFLOW_CODEC_CURRENT_KEY) throw new Error('SWFLOW_CODEC_CURRENT_KEY is set but no key is (SWFLOW_CODEC_KEYS or SWFLOW_CODEC_KEY_FILE)');
    return undefined;
  }
  return keyring(keys, env.SWFLOW_CODEC_CURRENT_KEY || undefined);
}
