/**
 * Import cycles among the TypeScript modules under a folder (dev check; src/workflow/README.md).
 * An edge is an `import`/`export … from` of a relative module that is kept at run time: `import
 * type …`, `export type …` and imports whose every name is `type X` are erased by the compiler, so
 * they make no cycle (pass `types: true` to count them as well). Imports leaving the folder are
 * ignored.
 *
 *   npx tsx test/helpers/import-cycles.ts [folder=src/workflow] [--types]
 *
 * exits 1 and prints each cycle when there is one.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
// swc's parser (the workflow bundler's compiler): TypeScript 7's package has no compiler API.
import { parseSync, type ExportAllDeclaration, type ExportNamedDeclaration, type ImportDeclaration } from '@swc/core';

function tsFiles(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) return tsFiles(p);
      return name.endsWith('.ts') && !name.endsWith('.d.ts') ? [p] : [];
    });
}

/** The file a relative specifier names (`./x` → x.ts or x/index.ts), if it exists. */
function resolveSpecifier(from: string, spec: string): string | undefined {
  const base = resolve(dirname(from), spec);
  for (const p of [`${base}.ts`, join(base, 'index.ts'), base]) if (existsSync(p) && statSync(p).isFile()) return p;
  return undefined;
}

/** Whether an import/export declaration survives compilation (is not type-only). */
function keptAtRuntime(node: ImportDeclaration | ExportNamedDeclaration | ExportAllDeclaration): boolean {
  if (node.type === 'ExportAllDeclaration') return true; // export * from './x'
  if (node.typeOnly) return false;
  // import './x' (side effects), a default or namespace import, `export * as n`, or one name that is not `type X`.
  return node.specifiers.length === 0 || node.specifiers.some((e) => !('isTypeOnly' in e) || !e.isTypeOnly);
}

/** Module graph of the folder: file → the files of the folder it imports. */
export function importGraph(folder: string, opts: { types?: boolean } = {}): Map<string, string[]> {
  const root = resolve(folder);
  const graph = new Map<string, string[]>();
  for (const file of tsFiles(root)) {
    const module = parseSync(readFileSync(file, 'utf8'), { syntax: 'typescript' });
    const deps = new Set<string>();
    for (const st of module.body) {
      if (st.type !== 'ImportDeclaration' && st.type !== 'ExportNamedDeclaration' && st.type !== 'ExportAllDeclaration') continue;
      const spec = st.source?.value;
      if (!spec?.startsWith('.')) continue;
      if (!opts.types && !keptAtRuntime(st)) continue;
      const target = resolveSpecifier(file, spec);
      if (target && target.startsWith(root + '/')) deps.add(target);
    }
    graph.set(file, [...deps]);
  }
  return graph;
}

/**
 * The import cycles of a graph: one per strongly connected component with more than one module
 * (or a module importing itself), shown as a path that closes on its first module.
 */
export function findCycles(graph: Map<string, string[]>): string[][] {
  // Tarjan's strongly connected components.
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const visit = (v: string) => {
    index.set(v, counter);
    low.set(v, counter++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const comp: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        comp.push(w);
      } while (w !== v);
      if (comp.length > 1 || (graph.get(v) ?? []).includes(v)) components.push(comp);
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  // One concrete cycle per component: a shortest path back to its first module, within it.
  return components.map((comp) => {
    const inComp = new Set(comp);
    const start = [...comp].sort()[0];
    const prev = new Map<string, string>();
    const queue = [start];
    const seen = new Set([start]);
    while (queue.length) {
      const v = queue.shift()!;
      for (const w of graph.get(v) ?? []) {
        if (!inComp.has(w)) continue;
        if (w === start) {
          const path = [v];
          while (path[0] !== start) path.unshift(prev.get(path[0])!);
          return [...path, start];
        }
        if (!seen.has(w)) {
          seen.add(w);
          prev.set(w, v);
          queue.push(w);
        }
      }
    }
    return [start, start];
  });
}

/** The cycles under `folder`, as paths relative to the working directory. */
export function importCycles(folder: string, opts: { types?: boolean } = {}): string[][] {
  return findCycles(importGraph(folder, opts)).map((c) => c.map((f) => relative(process.cwd(), f)));
}

if (require.main === module) {
  const args = process.argv.slice(2);
  const types = args.includes('--types');
  const folder = args.find((a) => !a.startsWith('--')) ?? 'src/workflow';
  const cycles = importCycles(folder, { types });
  if (!cycles.length) {
    console.log(`no import cycle under ${folder}${types ? ' (type imports included)' : ''}`);
  } else {
    for (const c of cycles) console.log(`cycle: ${c.join(' → ')}`);
    process.exit(1);
  }
}
