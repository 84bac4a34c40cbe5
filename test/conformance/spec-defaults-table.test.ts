/**
 * docs/spec-defaults.md stays true: every row names at least one test, every test it names
 * exists (by its exact name, in the file it names), every source file it names exists, and
 * every `spec default:` test is named by some row.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const ROOT = resolve(__dirname, '..', '..');
const DOC = join(ROOT, 'docs', 'spec-defaults.md');
const SPEC_DEFAULT_TESTS = ['test/dsl/spec-defaults.test.ts', 'test/workflow/spec-defaults.test.ts', 'test/workflow/core.test.ts'];

interface Row {
  line: number;
  property: string;
  cells: string[];
}

function rows(): Row[] {
  return readFileSync(DOC, 'utf8')
    .split('\n')
    .map((text, i) => ({ text, line: i + 1 }))
    .filter(({ text }) => text.startsWith('| ') && !text.startsWith('| Property'))
    .map(({ text, line }) => {
      const cells = text.slice(2, -2).split(' | ');
      return { line, property: cells[0], cells };
    });
}

/** `path` › `test name` references, or a bare `path` (a case file). */
function references(cell: string): { file: string; name?: string; text: string }[] {
  return cell.split('<br>').map((text) => {
    const m = /^`([^`]+)`(?: › `([^`]+)`)?$/.exec(text.trim());
    assert.ok(m, `not a test reference: ${text}`);
    return { file: m[1], name: m[2], text };
  });
}

/** The names of the tests a file declares (quotes unescaped). */
function testNames(file: string): string[] {
  const src = readFileSync(join(ROOT, file), 'utf8');
  return [...src.matchAll(/\btest\(\s*(['"`])((?:\\.|(?!\1).)*)\1/g)].map((m) => m[2].replace(/\\(.)/g, '$1'));
}

test('every row of docs/spec-defaults.md names tests that exist', () => {
  const all = rows();
  assert.ok(all.length >= 40, `only ${all.length} rows`);
  const problems: string[] = [];
  for (const row of all) {
    const tests = row.cells[row.cells.length - 1];
    for (const ref of references(tests)) {
      if (!existsSync(join(ROOT, ref.file))) problems.push(`line ${row.line} (${row.property}): no file ${ref.file}`);
      else if (ref.name !== undefined && !testNames(ref.file).includes(ref.name)) problems.push(`line ${row.line} (${row.property}): ${ref.file} has no test "${ref.name}"`);
      else if (ref.name === undefined && !ref.file.endsWith('.case.yaml')) problems.push(`line ${row.line} (${row.property}): ${ref.text} names no test`);
    }
  }
  assert.deepEqual(problems, []);
});

test('every source file docs/spec-defaults.md names exists', () => {
  const problems: string[] = [];
  for (const row of rows()) {
    for (const [, path] of row.cells.slice(0, -1).join(' ').matchAll(/`((?:src|test)\/[^`\s]+)`/g)) {
      if (!existsSync(join(ROOT, path))) problems.push(`line ${row.line} (${row.property}): no file ${path}`);
    }
  }
  assert.deepEqual(problems, []);
});

test('every "spec default:" test is named in docs/spec-defaults.md', () => {
  const named = new Set(rows().flatMap((r) => references(r.cells[r.cells.length - 1]).map((ref) => `${ref.file} › ${ref.name}`)));
  const missing = SPEC_DEFAULT_TESTS.flatMap((file) => testNames(file).filter((n) => n.startsWith('spec default:')).map((n) => `${file} › ${n}`)).filter((k) => !named.has(k));
  assert.deepEqual(missing, []);
});
