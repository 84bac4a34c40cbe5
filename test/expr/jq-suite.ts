/**
 * jq's test files read and checked the way jq's own harness does (src/jq_test.c), through
 * swflow's engine (`runJq`): used by jq-suite.test.ts, in the test's thread and in a worker
 * thread with a larger native stack.
 */
import assert from 'node:assert/strict';
import { runJq } from '../../src/expr/engine';

export interface JqTest {
  line: number;
  program: string;
  /** `%%FAIL` (message checked) or `%%FAIL IGNORE MSG`. */
  fail?: 'message' | 'any';
  input?: string;
  /** Expected outputs, or for `%%FAIL` the expected message lines. */
  expected: string[];
}

const skipLine = (l: string) => /^[ \t]*(#|$)/.test(l);

/** The tests of one file, read as src/jq_test.c reads them. */
export function parseJqTests(text: string): JqTest[] {
  const lines = text.split('\n');
  const tests: JqTest[] = [];
  let fail: JqTest['fail'];
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i];
    if (skipLine(l)) continue;
    if (l === '%%FAIL' || l === '%%FAIL IGNORE MSG') {
      fail = l === '%%FAIL' ? 'message' : 'any';
      continue;
    }
    const t: JqTest = { line: i + 1, program: l, fail, expected: [] };
    fail = undefined;
    if (!t.fail) t.input = lines[++i];
    while (i + 1 < lines.length && !skipLine(lines[i + 1])) t.expected.push(lines[++i]);
    i++; // the blank or comment line that ends the test
    tests.push(t);
  }
  return tests;
}

/** Why a test cannot run here, or undefined. */
export function skipReason(t: JqTest): string | undefined {
  if (/\b(import|include)\s+"|\bmodulemeta\b|\bget_search_list\b/.test(t.program)) {
    return 'needs jq modules from a filesystem (jq runs these with -L tests/modules)';
  }
  if (/\$ENV\.PAGER|env\.PAGER/.test(t.program)) {
    return 'reads $PAGER (jq runs man.test with PAGER=less; the engine\'s environment is empty on purpose)';
  }
  return undefined;
}

function value(run: ReturnType<typeof runJq>): unknown {
  assert.equal(run.kind, 'ok', JSON.stringify(run));
  return (JSON.parse(run.kind === 'ok' ? run.outputs : '[]') as unknown[])[0];
}

/** jq's own `==` (jv_equal) on two JSON texts, and whether `expected` survives dump + re-parse. */
function compare(actual: string, expected: string): { equal: boolean; reparses: boolean } | 'invalid' {
  const run = runJq('.[1] as $e | {equal: (.[0] == $e), reparses: (($e | tojson | fromjson) == $e)}', `[${actual},\n${expected}\n]`);
  if (run.kind === 'bad-input') return 'invalid';
  return value(run) as { equal: boolean; reparses: boolean };
}

/** The last compile message starting with "jq: error" (what jq's harness keeps), or ''. */
function lastError(compileErrors: string): string {
  const messages = compileErrors.split(/\n(?=jq: )/);
  return messages.filter((m) => m.startsWith('jq: error')).pop() ?? '';
}

/** Runs one test; returns why it failed, or undefined. Throws JqEngineError when the engine itself fails. */
export function checkJqTest(t: JqTest): string | undefined {
  if (t.fail) {
    const run = runJq(t.program, 'null', 1);
    if (run.kind !== 'compile-error') return 'compiled, but should fail';
    if (t.fail === 'any') return undefined;
    let rest = lastError(run.message);
    for (const line of t.expected) {
      if (!rest.startsWith(line)) return `failed with ${JSON.stringify(rest.split('\n')[0])}, expected ${JSON.stringify(line)}`;
      rest = rest.slice(line.length);
      if (rest.startsWith('\n')) rest = rest.slice(1);
    }
    return rest === '' ? undefined : `extra message ${JSON.stringify(rest)}`;
  }
  const run = runJq(t.program, t.input ?? 'null', t.expected.length + 1);
  if (run.kind === 'compile-error') return `does not compile: ${run.message.split('\n')[0]}`;
  if (run.kind === 'bad-input') return `input is invalid: ${run.message}`;
  // Outputs are re-serialised per item so each can be compared as jq text.
  const outputs = (JSON.parse(run.outputs) as unknown[]).length;
  const texts = outputTexts(run.outputs);
  assert.equal(texts.length, outputs);
  for (let i = 0; i < t.expected.length; i++) {
    if (i >= texts.length) return `insufficient results (${texts.length} of ${t.expected.length})${run.kind === 'error' ? `: ${run.message}` : ''}`;
    const c = compare(texts[i], t.expected[i]);
    if (c === 'invalid') return `expected result is invalid: ${t.expected[i]}`;
    if (!c.equal) return `expected ${t.expected[i]}, got ${texts[i]}`;
    if (!c.reparses) return `expected ${t.expected[i]} differs after dump and re-parse`;
  }
  if (texts.length > t.expected.length) return `superfluous result ${texts[t.expected.length]}`;
  return undefined;
}

/** Splits jq's output array text into the texts of its items (jq's own spelling of numbers kept). */
function outputTexts(outputs: string): string[] {
  const items: string[] = [];
  let depth = 0;
  let start = 1;
  let inString = false;
  for (let i = 1; i < outputs.length - 1; i++) {
    const c = outputs[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '[' || c === '{') depth++;
    else if (c === ']' || c === '}') depth--;
    else if (c === ',' && depth === 0) {
      items.push(outputs.slice(start, i));
      start = i + 1;
    }
  }
  if (outputs.length > 2) items.push(outputs.slice(start, outputs.length - 1));
  return items;
}

