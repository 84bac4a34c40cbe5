/**
 * The interpreter worker's definitions: folders/files of definitions (`*.sw.json`,
 * `*.sw.yaml`, and any other `.json`/`.yaml`/`.yml` that loads as a definition) and/or
 * already-loaded definitions (0.8-family WorkflowDef or 1.0 V1Definition), looked up by `id` or
 * `id@version` (a 1.0 document's id is `<namespace>/<name>`).
 *
 * Files are re-read when they change (mtime), so a new run picks up the current file; a
 * running instance never does, because its definition is pinned into its history.
 */
import { metrics } from '../metrics';
import { createHash } from 'node:crypto';
import { accessSync, constants, readdirSync, statSync } from 'node:fs';
import { extname, join, resolve as resolvePath } from 'node:path';
import { errorClass, SwflowError } from '../common/errors';
import type { Definition, WorkflowDef } from '../common/model';
import { isV1Definition } from '../common/model-v1';

export type DefinitionSource = string | Definition;

interface Entry {
  def: Definition;
  source: string;
}

interface FileCache {
  mtimeMs: number;
  entry?: Entry;
  problem?: string;
}

const EXTS = new Set(['.json', '.yaml', '.yml']);

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
  const why = broken.length ? `; ${broken.length} file(s) do not load, e.g. ${broken[0].path}: ${broken[0].problem}` : ' (*.sw.json, *.sw.yaml, ...); is the folder mounted?';
  throw new Error(`${option} ${registry.places().join(', ')}: no workflow definition found${why}`);
}

export class DefinitionRegistry {
  private readonly files = new Map<string, FileCache>();
  private readonly folders: string[] = [];
  private readonly fileSources: string[] = [];
  private readonly objects: Entry[] = [];

  constructor(sources: DefinitionSource[] = []) {
    for (const s of sources) {
      if (typeof s === 'string') {
        const p = resolvePath(s);
        let isDir = false;
        try {
          isDir = statSync(p).isDirectory();
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

  private listFiles(): string[] {
    const out: string[] = [...this.fileSources];
    const walk = (dir: string, depth: number) => {
      let names: string[];
      try {
        names = readdirSync(dir).sort();
      } catch {
        return;
      }
      for (const n of names) {
        if (n.startsWith('.') || n === 'node_modules') continue;
        const p = join(dir, n);
        let st;
        try {
          st = statSync(p);
        } catch {
          continue;
        }
        if (st.isDirectory()) {
          if (depth < 5) walk(p, depth + 1);
        } else if (EXTS.has(extname(n).toLowerCase()) && !/\.(input|case|output)\.(json|ya?ml)$/i.test(n)) out.push(p);
      }
    };
    for (const f of this.folders) walk(f, 0);
    return out;
  }

  private async loadFile(path: string): Promise<FileCache> {
    let mtimeMs = -1;
    try {
      mtimeMs = statSync(path).mtimeMs;
    } catch {
      return { mtimeMs, problem: 'file not found' };
    }
    const cached = this.files.get(path);
    if (cached && cached.mtimeMs === mtimeMs) return cached;
    let result: FileCache;
    try {
      // eslint-disable-next-line @typescript-eslint/no-var-requires
      const dsl = require('../dsl') as typeof import('../dsl');
      const { definition, problems } = await dsl.loadAnyDefinitionFile(path, {});
      if (definition) result = { mtimeMs, entry: { def: definition, source: path } };
      else {
        const first = problems.find((p: any) => p.severity === 'error') ?? problems[0];
        result = { mtimeMs, problem: first ? dsl.formatFinding(first) : 'not a definition' };
      }
    } catch (err) {
      result = { mtimeMs, problem: (err as Error).message };
    }
    this.files.set(path, result);
    return result;
  }

  /** All loadable definitions, plus the files that did not load (with their first problem). */
  async all(): Promise<{ entries: Entry[]; broken: { path: string; problem: string }[] }> {
    const entries: Entry[] = [...this.objects];
    const broken: { path: string; problem: string }[] = [];
    const files = this.listFiles();
    // Files no longer listed are forgotten: the cache holds at most what the folders hold.
    if (this.files.size > files.length) {
      const listed = new Set(files);
      for (const path of this.files.keys()) if (!listed.has(path)) this.files.delete(path);
    }
    for (const f of files) {
      const r = await this.loadFile(f);
      if (r.entry) entries.push(r.entry);
      else if (r.problem) broken.push({ path: f, problem: r.problem });
    }
    const m = metrics();
    m?.definitionsLoaded.set(entries.length);
    m?.definitionsRejected.set(broken.length);
    return { entries, broken };
  }

  /** Every loaded definition, 0.8-model and 1.0 alike (files that do not load are left out): what schedules and event routing read. */
  async allDefinitions(): Promise<Definition[]> {
    return (await this.all()).entries.map((e) => e.def);
  }

  /** Every loadable 0.8-family definition. */
  async definitions(): Promise<WorkflowDef[]> {
    return (await this.all()).entries.map((e) => e.def).filter((d): d is WorkflowDef => !isV1Definition(d));
  }

  /** The definition for a workflow type (`id` or `id@version`; without a version, the highest). */
  async resolve(type: string): Promise<Entry> {
    const { id, version } = parseType(type);
    const { entries, broken } = await this.all();
    const pick = (list: Entry[]) => list.sort((a, b) => compareVersions(b.def.version, a.def.version))[0];
    let found = pick(entries.filter((e) => e.def.id === id && (version === undefined || e.def.version === version)));
    if (!found && version !== undefined) found = pick(entries.filter((e) => e.def.id === type)); // ids containing '@'
    if (found) return found;
    const known = [...new Set(entries.map((e) => (e.def.version ? `${e.def.id}@${e.def.version}` : e.def.id)))].sort();
    const lines = [
      `No workflow definition with id "${id}"${version ? ` and version "${version}"` : ''}. The worker looked in: ${this.places().join(', ') || '(no definitions configured)'}.`,
      known.length ? `Known definitions: ${known.join(', ')}.` : 'No definitions were found there.',
    ];
    const relevant = broken.filter((b) => /\.sw\.(json|ya?ml)$/i.test(b.path) || b.path.toLowerCase().includes(id.toLowerCase()));
    if (relevant.length) lines.push(`Files that did not load: ${relevant.slice(0, 5).map((b) => `${b.path}: ${b.problem}`).join('; ')}`);
    throw new DefinitionNotFound(lines.join(' '));
  }
}
