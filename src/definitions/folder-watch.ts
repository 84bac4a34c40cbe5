/**
 * Watches the folders the definition registry reads, so a definition added, changed or removed
 * reaches the registry's index without a restart or a listing per run start. One `fs.watch` per
 * folder listed (not a recursive watch: on Linux, Node's recursive watch walks and watches
 * every sub-folder, node_modules and .git included, where the registry reads 5 levels and skips
 * those). A folder that cannot be watched (inotify limits, some network file systems) is left to
 * the registry's periodic re-scan, said once.
 */
import type { FSWatcher } from 'node:fs';
import type { RegistryFs } from './registry';

export class FolderWatch {
  private readonly watchers = new Map<string, FSWatcher>();
  /** Folders whose watch failed: said once, then left to the re-scan. */
  private readonly failed = new Set<string>();

  constructor(
    private readonly fs: RegistryFs,
    private readonly changed: (dir: string, name: string | undefined) => void,
    private readonly log: (message: string) => void,
  ) {}

  /** Watches exactly `dirs` (the folders of the last listing): new ones are added, gone ones closed. */
  follow(dirs: string[]): void {
    const wanted = new Set(dirs);
    for (const [dir, w] of this.watchers) {
      if (!wanted.has(dir)) {
        w.close();
        this.watchers.delete(dir);
      }
    }
    for (const dir of wanted) {
      if (this.watchers.has(dir) || this.failed.has(dir)) continue;
      try {
        // persistent: false — a watch keeps no process alive (a one-shot CLI command exits).
        const w = this.fs.watch(dir, { persistent: false }, (_event, name) => this.changed(dir, name ? String(name) : undefined));
        w.on('error', (err) => this.fail(dir, err));
        this.watchers.set(dir, w);
      } catch (err) {
        this.fail(dir, err as Error);
      }
    }
  }

  private fail(dir: string, err: Error): void {
    this.watchers.get(dir)?.close();
    this.watchers.delete(dir);
    // A folder removed is no failure: the next listing no longer has it.
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    this.failed.add(dir);
    this.log(`definitions folder ${dir} cannot be watched (${(err as NodeJS.ErrnoException).code ?? err.message}); its changes are seen by the periodic re-scan`);
  }

  close(): void {
    for (const w of this.watchers.values()) w.close();
    this.watchers.clear();
  }
}
