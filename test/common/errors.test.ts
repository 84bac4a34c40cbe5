/**
 * One error family (src/common/errors.ts): every error class in src/, adapters/, workers/ and
 * bin/ descends from SwflowError, is marked with errorClass under its own name, and no two share
 * a name; `instanceof` holds across realms (the workflow sandbox is a node:vm context), which a
 * constructor-identity check would not. The source scan keeps code written later honest.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { createContext, runInContext } from 'node:vm';
import { buildSync } from 'esbuild';
import { errorMarker, SwflowError } from '../../src/common/errors';
import { ExpressionError, JqEngineError } from '../../src/expr/errors';
import { SwExpressionError } from '../../src/workflow/expressions';
import { AdapterError, DefinitionError, isAdapterError } from '../../src/adapter-sdk';

const ROOT = resolve(__dirname, '../..');
const SCANNED = ['src', 'adapters', 'workers', 'bin'];

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (name === 'node_modules' || name.startsWith('.')) return [];
    if (statSync(path).isDirectory()) return sources(path);
    return /\.(ts|js|mjs|cjs)$/.test(name) && !name.endsWith('.d.ts') ? [path] : [];
  });
}

interface Declared {
  name: string;
  parent: string;
  file: string;
  /** The class's text up to the next class (enough to find its static block). */
  body: string;
}

/** Every `class X extends Y` of the scanned folders (declarations only, not strings or comments). */
function declaredClasses(): Declared[] {
  const out: Declared[] = [];
  for (const file of SCANNED.flatMap((d) => sources(join(ROOT, d)))) {
    const text = readFileSync(file, 'utf8');
    const re = /^\s*(?:export\s+)?(?:abstract\s+)?class\s+(\w+)\s+extends\s+([\w.]+)/gm;
    const found = [...text.matchAll(re)];
    found.forEach((m, i) => out.push({ name: m[1], parent: m[2], file: relative(ROOT, file), body: text.slice(m.index, found[i + 1]?.index ?? text.length) }));
  }
  return out;
}

test('every error class descends from SwflowError, is marked under its own name, and no two share a name', () => {
  const classes = declaredClasses();
  const byName = new Map<string, Declared[]>();
  for (const c of classes) byName.set(c.name, [...(byName.get(c.name) ?? []), c]);
  const duplicates = [...byName].filter(([, cs]) => cs.length > 1).map(([n, cs]) => `${n} (${cs.map((c) => c.file).join(', ')})`);
  assert.deepEqual(duplicates, [], 'two classes share a name');

  // An error class is one whose parent is an error (Error, or one of ours, transitively).
  const isErrorName = (n: string) => /(^|\.)(Error|\w+Error|\w+Failure)$/.test(n);
  const errors = classes.filter((c) => {
    for (let cur: Declared | undefined = c, i = 0; cur && i < 20; cur = byName.get(cur.parent)?.[0], i++) if (isErrorName(cur.parent) || cur.parent === 'SwflowError') return true;
    return false;
  });
  assert.ok(errors.length >= 20, `found only ${errors.length} error classes: the scan is broken`);
  const astray: string[] = [];
  for (const c of errors) {
    let cur: Declared | undefined = c;
    for (let i = 0; cur && cur.name !== 'SwflowError' && i < 20; i++) cur = byName.get(cur.parent)?.[0];
    if (cur?.name !== 'SwflowError') astray.push(`${c.name} (${c.file}) extends ${c.parent}`);
    else if (c.name !== 'SwflowError' && !/static\s*\{\s*(\/\/[^\n]*\n\s*)*errorClass\(this, /.test(c.body)) astray.push(`${c.name} (${c.file}) has no errorClass(this, …) static block`);
  }
  assert.deepEqual(astray, [], 'error classes outside the family');
  assert.equal(byName.get('SwflowError')?.[0].file, join('src', 'common', 'errors.ts'));
});

test('every exported error class is named after itself and is an instance of SwflowError by its marker', () => {
  const checked: string[] = [];
  const classes = declaredClasses();
  for (const file of new Set(classes.map((c) => c.file))) {
    const mod = require(join(ROOT, file)) as Record<string, unknown>;
    const declaredHere = new Set(classes.filter((c) => c.file === file).map((c) => c.name));
    for (const [exported, value] of Object.entries(mod)) {
      if (!declaredHere.has(exported) || typeof value !== 'function' || !(value.prototype instanceof Error)) continue;
      const clazz = value as { new (...args: never[]): Error; prototype: Error };
      assert.equal(clazz.prototype.name, exported, `${file}: ${exported}'s name`);
      // What an instance made in another realm carries: the markers of its chain, nothing else.
      const foreign = Object.create(null) as Record<symbol, boolean>;
      for (let p: object | null = clazz.prototype; p && p !== Error.prototype; p = Object.getPrototypeOf(p)) {
        for (const s of Object.getOwnPropertySymbols(p)) foreign[s] = (p as Record<symbol, boolean>)[s];
      }
      assert.ok(foreign instanceof clazz, `${exported} by its marker`);
      assert.ok(foreign instanceof SwflowError, `${exported} is a SwflowError by its markers`);
      checked.push(exported);
    }
  }
  for (const n of ['SwflowError', 'ExpressionError', 'JqEngineError', 'SwExpressionError', 'HttpError', 'DefinitionError', 'AdapterError', 'WorkflowError', 'ActionError']) assert.ok(checked.includes(n), `${n} was checked`);
});

/** The modules' code (bundled, as webpack bundles the workflow) run in a fresh vm realm; their exports. */
function inFreshRealm(...modules: string[]): Record<string, any> {
  const contents = modules.map((m) => `export * from './${m}';`).join('\n');
  const { outputFiles } = buildSync({ stdin: { contents, resolveDir: ROOT, loader: 'ts' }, bundle: true, format: 'cjs', platform: 'neutral', write: false, logLevel: 'silent' });
  const context = createContext({ module: { exports: {} } });
  runInContext(outputFiles[0].text, context);
  return (context.module as { exports: Record<string, any> }).exports;
}

test('instanceof holds across realms, both ways, and tells the family members apart', () => {
  const other = inFreshRealm('src/common/errors', 'src/expr/errors', 'src/http/error');
  const foreign = new other.ExpressionError('${ .a }', 'boom', 'syntax');
  assert.ok(!(foreign instanceof Error), 'a vm realm has its own Error (else this test proves nothing)');
  assert.ok(foreign instanceof SwflowError);
  assert.ok(foreign instanceof ExpressionError);
  assert.ok(!(foreign instanceof JqEngineError));
  assert.ok(!(foreign instanceof SwExpressionError));
  assert.equal(String(foreign), 'ExpressionError: expression "${ .a }" failed: boom');
  const engine = new other.JqEngineError('jq ran out of memory');
  assert.ok(engine instanceof JqEngineError && engine instanceof SwflowError && !(engine instanceof ExpressionError)); // the engine failed, not an expression
  assert.ok(new other.HttpError(404, 'nothing') instanceof SwflowError);
  assert.ok(!(new other.HttpError(404, 'nothing') instanceof ExpressionError));

  const here = new SwExpressionError('Expression "x" (y) failed: z', 'x', { what: 'y' });
  assert.ok(here instanceof other.SwflowError && here instanceof other.ExpressionError);
  assert.ok(!(here instanceof other.JqEngineError));
  assert.ok(!({} instanceof other.SwflowError) && !((null as unknown) instanceof SwflowError) && !(new Error('x') instanceof SwflowError));
});

test('an AdapterError of an earlier SDK copy (its brand on the instance) is still one', () => {
  const older = Object.assign(new Error('no pets'), { code: 'NotFound' });
  Object.defineProperty(older, Symbol.for('swflow.AdapterError'), { value: true });
  assert.ok(isAdapterError(older) && older instanceof AdapterError);
  assert.ok(!(new DefinitionError('x') instanceof AdapterError) && !isAdapterError(new DefinitionError('x')));
  assert.equal(errorMarker('AdapterError'), Symbol.for('swflow.AdapterError'));
});
