/**
 * Payloads in a directory: `<dir>/<2 hex>/<key>`. The embedded default (`swflow start` keeps
 * them beside its dev server's database); every process of a deployment must see the same
 * directory, so a cluster uses PostgreSQL or S3 instead. A payload is written to a temporary
 * file and renamed into place: a reader never sees half of one, and a crash leaves at most a
 * temporary file (removed by gc).
 */
import { mkdir, readFile, readdir, rename, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { checkKey, PayloadMissing, type PayloadStore, type StoredPayload } from './store';

export class FilePayloadStore implements PayloadStore {
  readonly kind = 'file' as const;
  readonly location: string;
  private readonly dir: string;

  constructor(dir: string) {
    this.dir = resolve(dir);
    this.location = pathToFileURL(this.dir).href;
  }

  private path(key: string): string {
    checkKey(key);
    return join(this.dir, key.slice(7, 9), key);
  }

  async put(key: string, bytes: Uint8Array): Promise<{ written: boolean }> {
    const path = this.path(key);
    // Already there: made young again (see PayloadStore.put), unless removed meanwhile (then written anew).
    if (await utimes(path, new Date(), new Date()).then(() => true, () => false)) return { written: false };
    await mkdir(join(path, '..'), { recursive: true });
    const tmp = `${path}.${randomBytes(6).toString('hex')}.tmp`;
    await writeFile(tmp, bytes);
    await rename(tmp, path);
    return { written: true };
  }

  async get(key: string): Promise<Uint8Array> {
    try {
      return await readFile(this.path(key));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw new PayloadMissing(key, this.location);
      throw err;
    }
  }

  async *list(): AsyncIterable<StoredPayload> {
    let shards: string[];
    try {
      shards = await readdir(this.dir);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw err;
    }
    for (const shard of shards.filter((s) => /^[0-9a-f]{2}$/.test(s)).sort()) {
      for (const name of await readdir(join(this.dir, shard)).catch(() => [] as string[])) {
        const s = await stat(join(this.dir, shard, name)).catch(() => undefined);
        if (!s) continue;
        // A temporary file left by a crash is listed under its own name (gc removes it once old).
        yield { key: name, size: s.size, createdAt: s.mtime };
      }
    }
  }

  async delete(keys: string[], olderThan?: Date): Promise<number> {
    let n = 0;
    for (const key of keys) {
      const path = /\.tmp$/.test(key) ? join(this.dir, key.slice(7, 9), key.replace(/[/\\]/g, '')) : this.path(key);
      const s = await stat(path).catch(() => undefined);
      if (s && (!olderThan || s.mtime < olderThan)) {
        await rm(path, { force: true });
        n++;
      }
    }
    return n;
  }

  uri(key: string): string {
    return pathToFileURL(this.path(key)).href;
  }

  async close(): Promise<void> {}
}
