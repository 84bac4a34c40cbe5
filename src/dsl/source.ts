/**
 * Parsing JSON/YAML text while keeping source positions, and mapping JSON pointers of the
 * (possibly rewritten, possibly assembled from several files) document back to
 * `file:line:col`.
 */
import { isMap, isPair, isScalar, isSeq, LineCounter, parseDocument, type Node as YamlNode, type Pair, type YAMLMap } from 'yaml';
import type { Finding } from './findings';
import { deepBracketOffset, MAX_NESTING } from './nesting';

export interface Position {
  file: string;
  line?: number;
  col?: number;
}

/** One parsed text with its node tree. */
export class SourceDoc {
  readonly value: unknown;
  readonly problems: Finding[] = [];
  /** True when the text could not be turned into a document at all. */
  readonly fatal: boolean;
  private readonly lc = new LineCounter();
  private readonly root: unknown;

  constructor(
    readonly file: string,
    readonly text: string,
  ) {
    const deep = deepBracketOffset(text);
    if (deep !== undefined) {
      this.value = undefined;
      this.fatal = true;
      const before = text.slice(0, deep).split('\n');
      this.problems.push({ severity: 'error', message: `the document nests deeper than ${MAX_NESTING} levels`, file, line: before.length, col: before[before.length - 1].length + 1 });
      return;
    }
    if (text.length > LARGE_DOCUMENT) {
      // The YAML parser's node tree costs seconds and ~70 bytes of memory per byte of text: a large
      // document that is plain JSON is read by JSON.parse, its problems then named by pointer only.
      const value = parseJson(text);
      if (value !== undefined) {
        this.value = value;
        this.fatal = false;
        this.problems.push({ severity: 'warning', message: `a ${(text.length / 1e6).toFixed(1)} MB document: its problems are given without line numbers`, file });
        return;
      }
    }
    const doc = parseDocument(text, { lineCounter: this.lc, uniqueKeys: true, prettyErrors: false, keepSourceTokens: false, logLevel: 'error' });
    // Only the first syntax error: the following ones are mostly consequences of it.
    for (const e of doc.errors.slice(0, 1)) {
      const p = this.lc.linePos(e.pos[0]);
      this.problems.push({ severity: 'error', message: `${/\.json$/i.test(file) ? 'JSON/YAML' : 'YAML'} syntax error: ${firstLine(e.message)}`, file, line: p.line, col: p.col, hint: syntaxHint(e.code) });
    }
    for (const w of doc.warnings) {
      const p = this.lc.linePos(w.pos[0]);
      this.problems.push({ severity: 'warning', message: `YAML: ${firstLine(w.message)}`, file, line: p.line, col: p.col });
    }
    this.root = doc.contents;
    let value: unknown;
    let fatal = false;
    try {
      value = doc.toJS({ maxAliasCount: 1000 });
    } catch (err) {
      fatal = true;
      this.problems.push({ severity: 'error', message: `cannot read document: ${(err as Error).message}`, file });
    }
    if (doc.errors.length && (value === null || typeof value !== 'object')) fatal = true;
    this.value = value;
    this.fatal = fatal;
  }

  /**
   * Position of the node at `pointer` (or of the deepest existing ancestor). With `key`,
   * the position of the property name instead of its value.
   */
  locate(pointer: string, key = false): { line: number; col: number } | undefined {
    const segs = splitPointer(pointer);
    let node: unknown = this.root;
    let pos = rangeStart(node);
    for (let i = 0; i < segs.length; i++) {
      const seg = segs[i];
      if (isMap(node)) {
        const pair = pairsOf(node).get(seg);
        if (!pair) break;
        const last = i === segs.length - 1;
        const kpos = rangeStart(pair.key);
        if (last && key) return toLine(this.lc, kpos);
        node = pair.value;
        pos = rangeStart(pair.value) ?? kpos;
      } else if (isSeq(node)) {
        const idx = Number(seg);
        const item = Number.isInteger(idx) ? node.items[idx] : undefined;
        if (item === undefined) break;
        node = item;
        pos = rangeStart(item) ?? pos;
      } else break;
    }
    return toLine(this.lc, pos);
  }
}

/** Above this many characters, a document that is valid JSON is not parsed as YAML (see SourceDoc). */
const LARGE_DOCUMENT = 1_000_000;

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function firstLine(s: string): string {
  return s.split('\n')[0].replace(/ at line \d+, column \d+:?$/, '');
}

function syntaxHint(code: string): string | undefined {
  switch (code) {
    case 'DUPLICATE_KEY':
      return 'each property may appear only once';
    case 'BAD_INDENT':
    case 'MISSING_CHAR':
    case 'UNEXPECTED_TOKEN':
      return 'check indentation, brackets and quotes around this place';
    default:
      return undefined;
  }
}

/**
 * A map's pairs by key (the first of duplicates, as a search from the start finds), indexed on
 * the first lookup: placing one problem per entry of a 20,000-entry map stays linear.
 */
const pairIndex = new WeakMap<YAMLMap, Map<string, Pair>>();
function pairsOf(node: YAMLMap): Map<string, Pair> {
  let index = pairIndex.get(node);
  if (!index) {
    index = new Map();
    for (const p of node.items) {
      const k = isPair(p) ? keyString(p.key) : undefined;
      if (k !== undefined && !index.has(k)) index.set(k, p);
    }
    pairIndex.set(node, index);
  }
  return index;
}

function keyString(k: unknown): string | undefined {
  if (isScalar(k)) return String(k.value);
  return undefined;
}

function rangeStart(n: unknown): number | undefined {
  const r = (n as YamlNode | undefined)?.range;
  return r ? r[0] : undefined;
}

function toLine(lc: LineCounter, offset: number | undefined): { line: number; col: number } | undefined {
  if (offset === undefined) return undefined;
  return lc.linePos(offset);
}

export function splitPointer(pointer: string): string[] {
  if (!pointer || pointer === '/') return pointer === '/' ? [''] : [];
  return pointer
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

export function joinPointer(...segs: (string | number)[]): string {
  return segs.map((s) => '/' + String(s).replace(/~/g, '~0').replace(/\//g, '~1')).join('');
}

/**
 * Maps pointers of the assembled document to places in source files. Mounts say "the
 * subtree at `prefix` comes from `doc` at `inner`" (external resources, renamed keys,
 * dialect translations); the longest matching prefix wins.
 */
export class SourceMap {
  private mounts: { prefix: string; doc?: SourceDoc; file: string; inner: string; exact?: boolean }[] = [];

  constructor(readonly main: SourceDoc | undefined, readonly mainFile: string) {}

  mount(prefix: string, doc: SourceDoc | undefined, inner: string, file?: string, exact = false): void {
    this.mounts.push({ prefix, doc, inner, file: file ?? doc?.file ?? this.mainFile, exact });
  }

  locate(pointer: string, key = false): Position {
    let best: (typeof this.mounts)[number] | undefined;
    for (const m of this.mounts) {
      const matches = m.exact ? pointer === m.prefix : pointer === m.prefix || pointer.startsWith(m.prefix + '/') || m.prefix === '';
      if (matches && (!best || m.prefix.length > best.prefix.length)) best = m;
    }
    if (!best) {
      if (!this.main) return { file: this.mainFile };
      const p = this.main.locate(pointer, key);
      return { file: this.main.file, ...p };
    }
    const rest = pointer.slice(best.prefix.length);
    if (!best.doc) return { file: best.file };
    const p = best.doc.locate(best.inner + rest, key);
    return { file: best.doc.file, ...p };
  }
}
