/** Checks what a case run produced against the case's `expect`. Pure: unit-testable. */
import type { Json } from '../common/model';
import type { CaseExpect } from './case';
import { compact, jsonDiff, jsonEqual, subsetMismatch } from './compare';

export interface RecordedCall {
  function: string;
  arguments: Json;
  /** Which rule answered (index), or undefined when none did. */
  rule?: number;
  workflowId?: string;
  state?: string;
}

export interface RunOutcome {
  status: 'completed' | 'failed' | 'terminated' | 'canceled' | 'timed-out' | 'continued-as-new' | 'running';
  output?: Json;
  /** For failed runs: the failure's messages, outermost first, joined. */
  errorMessage?: string;
  calls: RecordedCall[];
  producedEvents: { type: string; data?: Json }[];
  /** Names of the states entered, in order; undefined when unknown. */
  statesEntered?: string[];
  /** The run's history (and its children's), serialized with payloads decoded. */
  historyText?: string;
}

/** Every way the outcome differs from the expectation; empty when the case passes. */
export function checkOutcome(expect: CaseExpect, o: RunOutcome): string[] {
  const problems: string[] = [];
  if (o.status !== expect.status) {
    let why = `expected status ${expect.status}, got ${o.status}`;
    if (o.errorMessage) why += ` (error: ${o.errorMessage})`;
    else if (o.status === 'completed' && o.output !== undefined) why += ` (output: ${compact(o.output)})`;
    problems.push(why);
  }
  if (expect.hasOutput && (o.status === 'completed' || o.output !== undefined)) {
    if (!jsonEqual(expect.output, o.output)) {
      problems.push(`output differs (- expected, + actual):\n${indent(jsonDiff(expect.output, o.output))}`);
    }
  }
  if (expect.hasOutputContains && (o.status === 'completed' || o.output !== undefined)) {
    const where = subsetMismatch(expect.outputContains, o.output);
    if (where) {
      problems.push(
        `output does not contain the expected values (first difference at ${where}; - expected, + actual):\n${indent(
          jsonDiff(expect.outputContains, o.output),
        )}`,
      );
    }
  }
  if (expect.error?.messageContains !== undefined && expect.status !== 'invalid') {
    const msg = o.errorMessage ?? '';
    if (!msg.includes(expect.error.messageContains)) {
      problems.push(
        o.errorMessage === undefined
          ? `expected an error containing ${JSON.stringify(expect.error.messageContains)}, but the run reported no error`
          : `error message does not contain ${JSON.stringify(expect.error.messageContains)}: ${JSON.stringify(msg)}`,
      );
    }
  }
  if (expect.calls) problems.push(...checkCalls(expect.calls, o.calls));
  if (expect.producedEvents) problems.push(...checkEvents(expect.producedEvents, o.producedEvents));
  if (expect.states) {
    if (o.statesEntered === undefined) problems.push('the states entered could not be determined (state query unavailable)');
    else if (!jsonEqual(expect.states, o.statesEntered)) {
      problems.push(`states entered differ: expected ${JSON.stringify(expect.states)}, got ${JSON.stringify(o.statesEntered)}`);
    }
  }
  if (expect.historyExcludes) {
    if (o.historyText === undefined) problems.push('the run history could not be fetched for historyExcludes');
    else {
      for (const s of expect.historyExcludes) {
        const at = o.historyText.indexOf(s);
        if (at >= 0) {
          const ctx = o.historyText.slice(Math.max(0, at - 60), at + s.length + 60).replace(/\s+/g, ' ');
          problems.push(`history contains ${JSON.stringify(s)}: ...${ctx}...`);
        }
      }
    }
  }
  return problems;
}

function checkCalls(expected: CaseExpect['calls'] & object, actual: RecordedCall[]): string[] {
  const problems: string[] = [];
  const show = (c: RecordedCall) => `${c.function}(${compact(c.arguments, 120)})`;
  const n = Math.max(expected.length, actual.length);
  for (let i = 0; i < n; i++) {
    const e = expected[i];
    const a = actual[i];
    if (!e) {
      problems.push(`unexpected call #${i + 1}: ${show(a)}`);
      continue;
    }
    if (!a) {
      problems.push(`expected call #${i + 1} to ${e.function} was not made`);
      continue;
    }
    if (e.function !== a.function) {
      problems.push(`call #${i + 1}: expected ${e.function}, got ${show(a)}`);
    } else if (e.hasArguments && !jsonEqual(e.arguments, a.arguments)) {
      problems.push(`call #${i + 1} to ${e.function}: arguments differ (- expected, + actual):\n${indent(jsonDiff(e.arguments, a.arguments))}`);
    }
  }
  if (problems.length && actual.length !== expected.length) {
    problems.push(`calls made (${actual.length}): ${actual.map((c) => c.function).join(', ') || 'none'}; expected (${expected.length}): ${expected.map((c) => c.function).join(', ') || 'none'}`);
  }
  return problems;
}

function checkEvents(expected: CaseExpect['producedEvents'] & object, actual: RunOutcome['producedEvents']): string[] {
  const problems: string[] = [];
  const n = Math.max(expected.length, actual.length);
  for (let i = 0; i < n; i++) {
    const e = expected[i];
    const a = actual[i];
    if (!e) problems.push(`unexpected produced event #${i + 1}: ${a.type} ${compact(a.data, 120)}`);
    else if (!a) problems.push(`expected produced event #${i + 1} (${e.type}) was not produced`);
    else if (e.type !== a.type) problems.push(`produced event #${i + 1}: expected type ${e.type}, got ${a.type}`);
    else if (e.hasData && !jsonEqual(e.data, a.data)) {
      problems.push(`produced event #${i + 1} (${e.type}): data differs (- expected, + actual):\n${indent(jsonDiff(e.data, a.data))}`);
    }
  }
  return problems;
}

function indent(s: string): string {
  return s
    .split('\n')
    .map((l) => `    ${l}`)
    .join('\n');
}
