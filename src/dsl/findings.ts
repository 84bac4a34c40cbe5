/**
 * Findings of validation: what the loader found in a definition document (an error, a warning or
 * an info, located), and their formatting. Load results and `swflow validate --json` list them
 * under `problems`, as they always have; an RFC 7807 problem (a 1.0 error) is something else:
 * src/common/problem.ts.
 */
import type { SourceMap } from './source';

/**
 * A finding in a definition document, located: an error (the document is refused), a
 * warning (accepted; refused with --strict), or an info (what the document needs to run, e.g. an
 * opt-in worker: never refused, even with --strict, since the document itself is right).
 */
export interface Finding {
  severity: 'error' | 'warning' | 'info';
  message: string;
  file?: string;
  line?: number;
  col?: number;
  /** JSON pointer into the document (as written, after resolving external resources). */
  pointer?: string;
  hint?: string;
}

/** "file:line:col: error: message (hint)" */
export function formatFinding(p: Finding): string {
  let where = p.file ?? '<inline>';
  if (p.line !== undefined) where += `:${p.line}`;
  if (p.line !== undefined && p.col !== undefined) where += `:${p.col}`;
  let s = `${where}: ${p.severity}: ${p.message}`;
  if (p.pointer !== undefined && p.line === undefined && p.pointer !== '') s += ` at ${p.pointer}`;
  if (p.hint) s += ` (${p.hint})`;
  return s;
}

/** Collects findings, locating each through the source map. */
export class Reporter {
  readonly list: Finding[] = [];
  private seen = new Set<string>();

  constructor(public map: SourceMap) {}

  add(severity: Finding['severity'], pointer: string, message: string, hint?: string, opts: { key?: boolean } = {}): void {
    const id = `${severity}|${pointer}|${message}`;
    if (this.seen.has(id)) return;
    this.seen.add(id);
    const pos = this.map.locate(pointer, opts.key);
    const p: Finding = { severity, message, file: pos.file, pointer };
    if (pos.line !== undefined) {
      p.line = pos.line;
      p.col = pos.col;
    }
    if (hint) p.hint = hint;
    this.list.push(p);
  }

  error(pointer: string, message: string, hint?: string, opts?: { key?: boolean }): void {
    this.add('error', pointer, message, hint, opts);
  }

  warn(pointer: string, message: string, hint?: string, opts?: { key?: boolean }): void {
    this.add('warning', pointer, message, hint, opts);
  }

  info(pointer: string, message: string, hint?: string, opts?: { key?: boolean }): void {
    this.add('info', pointer, message, hint, opts);
  }

  push(p: Finding): void {
    this.list.push(p);
  }

  get hasErrors(): boolean {
    return this.list.some((p) => p.severity === 'error');
  }
}
