/**
 * The interpreter worker's definitions: folders/files of definitions (`*.sw.json`,
 * `*.sw.yaml`, and any other `.json`/`.yaml`/`.yml` that loads as a definition; the OpenAPI,
 * AsyncAPI and JSON Schema documents kept beside them are left alone) and/or
 * already-loaded definitions (0.8-family WorkflowDef or 1.0 V1Definition), looked up by `id` or
 * `id@version` (a 1.0 document's id is `<namespace>/<name>`).
 *
 * The registry keeps an index (id → the files' definitions) so a run start costs one `stat` (of
 * the file it resolves), not a listing of every folder: 1,000 definitions cost a run start what
 * one does. The index follows the folders through a watch of each folder read
 * (./folder-watch.ts) and a periodic re-scan (SWFLOW_DEFINITIONS_RESCAN_MS, default 2 s) that
 * catches what a watch misses (network and some container file systems); a file changed but not
 * yet reported is caught by the run start's own stat. A file that does not load (parse or schema
 * error) is logged once per change with its file:line, listed by `problems()`, and skipped: the
 * others are served. A running instance never sees a change: its definition is pinned into its
 * history.
 */
import { metrics } from '../metrics';
import { createHash } from 'node:crypto';
import * as nodeFs from 'node:fs';
import { accessSync, constants, statSync } from 'node:fs';
import { extname, join, relative, resolve as resolvePath, sep } from 'node:path';
import { errorClass, SwflowError } from '../common/errors';
import type { Definition, WorkflowDef } from '../common/model';
import { isV1Definition } from '../common/model-v1';
import { apiDocumentName, type ApiDocumentKind } from '../dsl/api-documents';
import { checkApart } from './check-apart';
import { FolderWatch } from './folder-watch';

export type DefinitionSource = string | Definition;

interface Entry {
  def: Definition;
  source: string;
}

interface FileCache {
  /** What the file's stat said when it was loaded (mtime, size, inode): a change reloads it. */
  stamp: string;
  /** Where it sorts among the files (the order of the folders' listing), for ties between equal versions. */
  order: string;
  entry?: Entry;
  problem?: string;
  /** An API or schema document found in a folder (src/dsl/api-documents.ts): neither served nor reported. */
  apiDocument?: ApiDocumentKind;
}

/** The file-system calls the registry makes (node:fs by default; tests count them). */
export type RegistryFs = Pick<typeof nodeFs, 'statSync' | 'readdirSync' | 'watch'>;

export interface RegistryOptions {
  /** Where changes are reported: a file that does not load (with its file:line), and, after the first scan, definitions added, changed and removed. */
  log?: (message: string) => void;
  /** How often the folders are re-scanned while the registry watches (default SWFLOW_DEFINITIONS_RESCAN_MS, else 2000 ms). */
  rescanMs?: number;
  fs?: RegistryFs;
}

/** What definitions are written in; GraphQL, protobuf, XML (OData) documents beside them are never read. */
const EXTS = new Set(['.json', '.yaml', '.yml']);
/** Sub-folder levels read below a definitions folder. */
const MAX_DEPTH = 5;

/** Whether a file name is one the registry loads (inputs and test cases beside definitions are not). */
function definitionFileName(name: string): boolean {
  return EXTS.has(extname(name).toLowerCase()) && !/\.(input|case|output)\.(json|ya?ml)$/i.test(name);
}

/** Folders and files the registry does not read. */
const skipped = (name: string): boolean => name.startsWith('.') || name === 'node_modules';

const stampOf = (st: nodeFs.Stats): string => `${st.mtimeMs}:${st.size}:${st.ino}`;

/** The re-scan period: SWFLOW_DEFINITIONS_RESCAN_MS, else 2 s. */
export function rescanMs(): number {
  const v = Number(process.env.SWFLOW_DEFINITIONS_RESCAN_MS);
  return Number.isFinite(v) && v > 0 ? v : 2000;
}

export class DefinitionNotFound extends SwflowError {
  static {
    errorClass(this, 'DefinitionNotFound');
  }
}

/** Canonical JSON (sorted keys) → sha256 hex. */
export function definitionHash(def: Definition): string {
  const canon = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(canon);
    if (v && typeof v === 'object') {
      const o: Record<string, unknown> = {};
      for (const k of Object.keys(v as object).sort()) if ((v as any)[k] !== undefined) o[k] = canon((v as any)[k]);
      return o;
    }
    return v;
  };
  return createHash('sha256').update(JSON.stringify(canon(def))).digest('hex');
}

/** Compares dotted versions numerically where possible ("1.10.0" > "1.9.0"). */
export function compareVersions(a = '', b = ''): number {
  const pa = a.split(/[.-]/);
  const pb = b.split(/[.-]/);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const x = pa[i] ?? '';
    const y = pb[i] ?? '';
    const nx = Number(x);
    const ny = Number(y);
    const c = !Number.isNaN(nx) && !Number.isNaN(ny) && x !== '' && y !== '' ? nx - ny : x.localeCompare(y);
    if (c !== 0) return c;
  }
  return 0;
}

/** The latest version of each definition id (what a new instance of that id runs). */
export function latestVersions<D extends { id: string; version?: string }>(definitions: D[]): D[] {
  const latest = new Map<string, D>();
  for (const d of definitions) {
    const seen = latest.get(d.id);
    if (!seen || compareVersions(d.version, seen.version) > 0) latest.set(d.id, d);
  }
  return [...latest.values()];
}

export function parseType(type: string): { id: string; version?: string } {
  const at = type.lastIndexOf('@');
  if (at > 0) return { id: type.slice(0, at), version: type.slice(at + 1) };
  return { id: type };
}

/**
 * Fails naming the option when a definitions path does not exist: a worker or gateway serving
 * an empty registry (a typo, a volume not mounted) would otherwise start and fail every run.
 */
export function requireDefinitionPaths(paths: string[], option = '--definitions'): void {
  for (const p of paths) {
    let folder: boolean;
    try {
      folder = statSync(resolvePath(p)).isDirectory();
    } catch (err) {
      throw new Error(`${option} ${p}: no such folder or file (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}); create it or mount it there`);
    }
    // A volume this process's user cannot read (a host folder of mode 0700, say) looks empty.
    try {
      accessSync(resolvePath(p), folder ? constants.R_OK | constants.X_OK : constants.R_OK);
    } catch (err) {
      const uid = process.getuid?.();
      throw new Error(`${option} ${p}: cannot be read by this process${uid === undefined ? '' : ` (uid ${uid})`} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}); make it readable to that user`);
    }
  }
}

/**
 * Fails naming the option when the paths hold no definition at all: an empty folder is what a
 * container sees when its definitions volume was not there (docker creates the missing host
 * folder of a bind mount), and a worker serving nothing would fail every run it takes.
 */
export async function requireSomeDefinition(registry: DefinitionRegistry, option = '--definitions'): Promise<void> {
  const { entries, broken } = await registry.all();
  if (entries.length > 0) return;
  const why = broken.length ? `; ${broken.length} file(s) do not load, e.g. ${located(broken[0])}` : ' (*.sw.json, *.sw.yaml, ...); is the folder mounted?';
  throw new Error(`${option} ${registry.places().join(', ')}: no workflow definition found${why}`);
}

export class DefinitionRegistry {
  /** The folders' and given files' definitions (or problems), by path. */
  private readonly files = new Map<string, FileCache>();
  private readonly folders: string[] = [];
  private readonly fileSources: string[] = [];
  private readonly objects: Entry[] = [];
  private readonly fs: RegistryFs;
  private readonly log?: (message: string) => void;
  private readonly rescanEveryMs: number;
  /** id → its definitions, highest version first (ties: objects, then listing order); rebuilt after a change. */
  private byId?: Map<string, Entry[]>;
  /** The loaded definitions in order, for routing; rebuilt after a change, as `byId`. */
  private loaded?: Definition[];
  /** Loads under way, by path: one read per file and stamp however many ask. */
  private readonly loading = new Map<string, { stamp: string; done: Promise<FileCache> }>();
  /** Full scans run one after another (each lists after the previous one finished). */
  private scans: Promise<void> = Promise.resolve();
  private scannedOnce = false;
  private watching?: { watch: FolderWatch; timer: NodeJS.Timeout; first: Promise<void> };

  constructor(sources: DefinitionSource[] = [], options: RegistryOptions = {}) {
    this.fs = options.fs ?? nodeFs;
    this.log = options.log;
    this.rescanEveryMs = options.rescanMs ?? rescanMs();
    for (const s of sources) {
      if (typeof s === 'string') {
        const p = resolvePath(s);
        let isDir = false;
        try {
          isDir = this.fs.statSync(p).isDirectory();
        } catch {
          /* missing: reported when looking up */
        }
        (isDir ? this.folders : this.fileSources).push(p);
      } else {
        this.objects.push({ def: s, source: `definition object ${s.id}` });
      }
    }
  }

  /** Where the worker looks, for messages. */
  places(): string[] {
    return [...this.folders, ...this.fileSources, ...(this.objects.length ? [`${this.objects.length} definition object(s)`] : [])];
  }

  /**
   * Keeps the index current from now on: a first scan, a watch of every folder read, and a
   * re-scan every `rescanMs`. Started by the first `resolve` (or by a worker at its start); keeps
   * no process alive. Resolves when the first scan is done.
   */
  watch(): Promise<void> {
    if (!this.watching) {
      const watch = new FolderWatch(this.fs, (dir, name) => this.touched(dir, name), (message) => this.log?.(message));
      let due = false; // a re-scan slower than the period (a first load of many files) is not queued again
      const timer = setInterval(() => {
        if (due) return;
        due = true;
        void this.scan()
          .catch(() => undefined)
          .finally(() => (due = false));
      }, this.rescanEveryMs);
      timer.unref();
      // A scan even after an earlier one: the watch learns the folders from it.
      this.watching = { watch, timer, first: this.scan() };
    }
    return this.watching.first;
  }

  /** Stops watching (tests, a worker shut down). */
  close(): void {
    if (!this.watching) return;
    clearInterval(this.watching.timer);
    this.watching.watch.close();
    this.watching = undefined;
  }

  /** The files that do not load, with their first problem (file:line: ...), as of the last scan or change seen. */
  problems(): { path: string; problem: string }[] {
    return this.ordered()
      .filter(([, c]) => !c.entry && c.problem)
      .map(([path, c]) => ({ path, problem: c.problem! }));
  }

  /** The order key of a path under source `index` (folders' contents sort as their listing does: segment by segment). */
  private orderOf(index: number, rel: string): string {
    return `${String(index).padStart(6, '0')}\u0001${rel.split(sep).join('\u0001')}`;
  }

  /** Lists the folders (depth ≤ MAX_DEPTH, no hidden folders or node_modules): each definition file with its stat. */
  private list(): { files: Map<string, { stamp: string; root: number }>; dirs: string[] } {
    // The source's index, not yet the order key: that is made only for a file (re)loaded.
    const files = new Map<string, { stamp: string; root: number }>();
    const dirs: string[] = [];
    this.fileSources.forEach((p, i) => {
      let st: nodeFs.Stats | undefined;
      try {
        st = this.fs.statSync(p, { throwIfNoEntry: false });
      } catch {
        st = undefined;
      }
      files.set(p, { stamp: st ? stampOf(st) : 'missing', root: i });
    });
    const walk = (index: number, dir: string, depth: number) => {
      let names: string[];
      try {
        names = this.fs.readdirSync(dir);
      } catch {
        return;
      }
      dirs.push(dir);
      for (const n of names) {
        if (skipped(n)) continue;
        const p = join(dir, n);
        let st: nodeFs.Stats | undefined;
        try {
          st = this.fs.statSync(p, { throwIfNoEntry: false });
        } catch {
          continue;
        }
        if (!st) continue;
        if (st.isDirectory()) {
          if (depth < MAX_DEPTH) walk(index, p, depth + 1);
        } else if (definitionFileName(n)) files.set(p, { stamp: stampOf(st), root: index });
      }
    };
    this.folders.forEach((f, i) => walk(this.fileSources.length + i, f, 0));
    return { files, dirs };
  }

  /** One full scan after those under way: new, changed and removed files; the watch follows the folders listed. */
  private scan(): Promise<void> {
    const next = this.scans.then(() => this.scanNow());
    this.scans = next.catch(() => undefined);
    return next;
  }

  private async scanNow(): Promise<void> {
    const { files, dirs } = this.list();
    this.watching?.watch.follow(dirs);
    for (const path of [...this.files.keys()]) if (!files.has(path)) this.forget(path);
    for (const [path, { stamp, root }] of files) {
      const known = this.files.get(path);
      if (known?.stamp === stamp) continue;
      const folder = root - this.fileSources.length;
      await this.load(path, stamp, known?.order ?? this.orderOf(root, folder < 0 ? '' : relative(this.folders[folder], path)));
    }
    this.scannedOnce = true;
    this.count();
  }

  /** A file known to be gone: dropped (a given file stays, as not found). */
  private forget(path: string): void {
    const gone = this.files.get(path);
    if (!gone) return;
    const given = this.fileSources.indexOf(path);
    if (given >= 0) {
      if (gone.problem === 'file not found') return;
      this.files.set(path, { stamp: 'missing', order: gone.order, problem: 'file not found' });
    } else this.files.delete(path);
    this.byId = this.loaded = undefined;
    if (gone.entry) this.log?.(`definition ${nameOf(gone.entry.def)} removed (${path} is gone)`);
  }

  /** Reads and checks one file (once per stamp, however many ask at once), and records the outcome. */
  private load(path: string, stamp: string, order: string): Promise<FileCache> {
    const under = this.loading.get(path);
    if (under?.stamp === stamp) return under.done;
    const done = (async (): Promise<FileCache> => {
      const before = this.files.get(path);
      let result: FileCache;
      if (stamp === 'missing') result = { stamp, order, problem: 'file not found' };
      else
        try {
          // Read and checked in a thread of its own (./check-apart.ts): the jq engine never loads in this one.
          const { definition, problem, apiDocument } = await checkApart(path);
          // An API document in a folder is what the definitions beside it refer to; one given by name is reported as not a definition.
          if (definition) result = { stamp, order, entry: { def: definition, source: path } };
          else if (apiDocument && !this.fileSources.includes(path)) result = { stamp, order, apiDocument };
          else result = { stamp, order, problem: problem ?? 'not a definition' };
        } catch (err) {
          result = { stamp, order, problem: (err as Error).message };
        }
      this.files.set(path, result);
      this.byId = this.loaded = undefined;
      // Reported once per change: a file is loaded again only when its stamp changed.
      if (result.problem && stamp !== 'missing') this.log?.(`definition file skipped: ${located({ path, problem: result.problem })}`);
      else if (result.entry && this.scannedOnce) this.log?.(`definition ${nameOf(result.entry.def)} ${before?.entry ? 'changed' : 'added'} (${path})`);
      else if (result.apiDocument && before?.entry) this.log?.(`definition ${nameOf(before.entry.def)} removed (${path} is now ${apiDocumentName(result.apiDocument)})`);
      return result;
    })().finally(() => {
      if (this.loading.get(path)?.done === done) this.loading.delete(path);
    });
    this.loading.set(path, { stamp, done });
    return done;
  }

  /** One file looked at again (one stat): reloaded when it changed, forgotten when it is gone. */
  private async refresh(path: string): Promise<void> {
    const cached = this.files.get(path);
    let st: nodeFs.Stats | undefined;
    try {
      st = this.fs.statSync(path, { throwIfNoEntry: false });
    } catch {
      st = undefined;
    }
    if (!st) return this.forget(path);
    if (st.isDirectory()) return void this.scan(); // a folder appeared where a file was
    const stamp = stampOf(st);
    if (cached?.stamp === stamp) return;
    const order = cached?.order ?? this.orderFor(path);
    if (order === undefined) return; // not inside the folders read
    await this.load(path, stamp, order);
    this.count();
  }

  /** Where a path reported by the watch sorts, or undefined when the registry does not read it. */
  private orderFor(path: string): string | undefined {
    for (let i = 0; i < this.folders.length; i++) {
      const rel = relative(this.folders[i], path);
      if (!rel || rel.startsWith('..')) continue;
      const parts = rel.split(sep);
      if (parts.length > MAX_DEPTH + 1 || parts.some(skipped) || !definitionFileName(parts[parts.length - 1])) return undefined;
      return this.orderOf(this.fileSources.length + i, rel);
    }
    return undefined;
  }

  private pendingPaths = new Set<string>();
  private pendingTimer?: NodeJS.Timeout;

  /** The watch saw `name` change in `dir`: that file is looked at again soon (changes come in bursts), anything else re-scans. */
  private touched(dir: string, name: string | undefined): void {
    const path = name ? join(dir, name) : undefined;
    if (path && (this.files.has(path) || this.orderFor(path) !== undefined)) this.pendingPaths.add(path);
    // A folder added or removed (a name without extension), a Kubernetes volume's `..data` swapped
    // (a ConfigMap updated: every file behind its links changes), or no name: list again.
    else if (!name || name.startsWith('..') || (!skipped(name) && extname(name) === '')) this.pendingPaths.add('');
    else return; // other files are not ours
    if (this.pendingTimer) return;
    this.pendingTimer = setTimeout(() => {
      this.pendingTimer = undefined;
      const paths = [...this.pendingPaths];
      this.pendingPaths.clear();
      if (paths.includes('')) void this.scan().catch(() => undefined);
      else for (const p of paths) void this.refresh(p).catch(() => undefined);
    }, 20);
    this.pendingTimer.unref();
  }

  /** The files in listing order. */
  private ordered(): [string, FileCache][] {
    return [...this.files].sort(([, a], [, b]) => (a.order < b.order ? -1 : a.order > b.order ? 1 : 0));
  }

  /** The index, rebuilt after a change (in memory: no file-system call). */
  private index(): Map<string, Entry[]> {
    if (this.byId) return this.byId;
    const byId = new Map<string, Entry[]>();
    for (const e of [...this.objects, ...this.ordered().flatMap(([, c]) => (c.entry ? [c.entry] : []))]) {
      const list = byId.get(e.def.id);
      if (list) list.push(e);
      else byId.set(e.def.id, [e]);
    }
    for (const list of byId.values()) list.sort((a, b) => compareVersions(b.def.version, a.def.version));
    return (this.byId = byId);
  }

  private snapshot(): { entries: Entry[]; broken: { path: string; problem: string }[] } {
    const entries: Entry[] = [...this.objects];
    const broken: { path: string; problem: string }[] = [];
    for (const [path, c] of this.ordered()) {
      if (c.entry) entries.push(c.entry);
      else if (c.problem) broken.push({ path, problem: c.problem });
    }
    return { entries, broken };
  }

  private count(): void {
    const m = metrics();
    if (!m) return;
    let loaded = this.objects.length;
    let rejected = 0;
    for (const c of this.files.values()) {
      if (c.entry) loaded++;
      else if (c.problem) rejected++;
    }
    m.definitionsLoaded.set(loaded);
    m.definitionsRejected.set(rejected);
  }

  /** All loadable definitions, plus the files that did not load (with their first problem): the folders are listed again, so this is current. */
  async all(): Promise<{ entries: Entry[]; broken: { path: string; problem: string }[] }> {
    await this.scan();
    return this.snapshot();
  }

  /** Every loaded definition, 0.8-model and 1.0 alike (files that do not load are left out): what schedules and event routing read. */
  async allDefinitions(): Promise<Definition[]> {
    return (await this.all()).entries.map((e) => e.def);
  }

  /**
   * Every loaded definition as the index has it: what event routing reads, per event. No listing
   * or stat per call (1,000 definitions cost an event what one does): the watch started here keeps
   * the index current (a change is seen within ~20 ms, or by the next re-scan), where
   * `allDefinitions` lists the folders again.
   */
  async indexedDefinitions(): Promise<Definition[]> {
    await this.watch();
    return (this.loaded ??= this.snapshot().entries.map((e) => e.def));
  }

  /** Every loadable 0.8-family definition. */
  async definitions(): Promise<WorkflowDef[]> {
    return (await this.all()).entries.map((e) => e.def).filter((d): d is WorkflowDef => !isV1Definition(d));
  }

  /** The indexed definition for `id` (`version`: that one, else the highest), or for an id containing '@'. */
  private pick(type: string, id: string, version: string | undefined): Entry | undefined {
    const index = this.index();
    const list = index.get(id) ?? [];
    const found = version === undefined ? list[0] : list.find((e) => e.def.version === version);
    return found ?? (version !== undefined ? index.get(type)?.[0] : undefined);
  }

  /**
   * The definition for a workflow type (`id` or `id@version`; without a version, the highest).
   * From the index: the one file it names is stat'ed (an edit not reported yet is read); a type
   * not in the index lists the folders once more (a file just added) before it fails.
   */
  async resolve(type: string): Promise<Entry> {
    const { id, version } = parseType(type);
    await this.watch();
    const checked = new Set<string>();
    let rescanned = false;
    for (;;) {
      const found = this.pick(type, id, version);
      if (found && (checked.has(found.source) || !this.files.has(found.source))) return found;
      if (found) {
        checked.add(found.source);
        await this.refresh(found.source);
        continue;
      }
      if (rescanned) break;
      rescanned = true;
      await this.scan();
    }
    const { entries, broken } = this.snapshot();
    const known = [...new Set(entries.map((e) => (e.def.version ? `${e.def.id}@${e.def.version}` : e.def.id)))].sort();
    const lines = [
      `No workflow definition with id "${id}"${version ? ` and version "${version}"` : ''}. The worker looked in: ${this.places().join(', ') || '(no definitions configured)'}.`,
      known.length ? `Known definitions: ${known.join(', ')}.` : 'No definitions were found there.',
    ];
    const relevant = broken.filter((b) => /\.sw\.(json|ya?ml)$/i.test(b.path) || b.path.toLowerCase().includes(id.toLowerCase()));
    if (relevant.length) lines.push(`Files that did not load: ${relevant.slice(0, 5).map(located).join('; ')}`);
    throw new DefinitionNotFound(lines.join(' '));
  }
}

/** A file's problem with its path once (a finding names its file:line already). */
const located = (b: { path: string; problem: string }): string => (b.problem.startsWith(`${b.path}:`) ? b.problem : `${b.path}: ${b.problem}`);

const nameOf = (def: Definition): string => (def.version ? `${def.id}@${def.version}` : def.id);
