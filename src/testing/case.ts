/**
 * Workflow test cases (`*.case.yaml` / `*.case.json`): loading and checking the case file
 * itself. The format is specified in shared/conformance/FORMAT.md.
 *
 * Loading a case does not validate the workflow definition (that is the runner's job,
 * through src/dsl): it only resolves where the definition(s) come from.
 */
import { readFileSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { errorClass, SwflowError } from '../common/errors';
import type { Json } from '../common/model';
import { durationProblem, parseDuration } from '../common/duration';

export type CaseStatus = 'completed' | 'failed' | 'terminated' | 'invalid';

/** A definition source: a file (absolute path) or an inline document. */
export type CaseDefinition =
  | { kind: 'file'; path: string; label: string }
  | { kind: 'inline'; doc: Record<string, Json>; label: string };

export interface MockRule {
  /** jq condition over the call's arguments. */
  when?: string;
  /** Serves only its first `times` matches. */
  times?: number;
  result?: Json;
  error?: { code: string; message: string };
  /** ISO 8601 duration the call takes (virtual time under time skipping). */
  delay?: string;
  delayMs?: number;
  /** Whether `result` was given (a `result: null` answers null). */
  hasResult: boolean;
}

export type EventTiming = { kind: 'waiting' } | { kind: 'start' } | { kind: 'after'; iso: string; ms: number };

export interface CaseEvent {
  at: EventTiming;
  event: Record<string, Json>;
}

export interface ExpectedCall {
  function: string;
  arguments?: Json;
  hasArguments: boolean;
}

export interface ExpectedEvent {
  type: string;
  data?: Json;
  hasData: boolean;
}

export interface CaseExpect {
  status: CaseStatus;
  output?: Json;
  hasOutput: boolean;
  outputContains?: Json;
  hasOutputContains: boolean;
  error?: { messageContains?: string };
  calls?: ExpectedCall[];
  producedEvents?: ExpectedEvent[];
  states?: string[];
  historyExcludes?: string[];
}

export interface TestCase {
  /** The case's name: the file name without `.case.yaml` / `.case.json`. */
  name: string;
  file: string;
  description?: string;
  workflow: CaseDefinition;
  subflows: CaseDefinition[];
  input: Json;
  constants?: Record<string, Json>;
  secrets: Record<string, string>;
  /**
   * Real adapters for the calls no mock rule answers (src/testing/README.md): module paths
   * (absolute), or `builtin` for swflow's built-in adapters.
   */
  adapters: string[];
  functions: Record<string, MockRule[]>;
  events: CaseEvent[];
  expect: CaseExpect;
}

export class CaseError extends SwflowError {
  static {
    errorClass(this, 'CaseError');
  }

  constructor(
    public file: string,
    public field: string,
    problem: string,
  ) {
    super(`${file}: ${field ? `${field}: ` : ''}${problem}`);
  }
}

export const CASE_FILE_RE = /\.case\.(ya?ml|json)$/i;

export function caseNameOf(file: string): string {
  return basename(file).replace(CASE_FILE_RE, '');
}

const TOP_FIELDS = new Set([
  'description',
  'workflow',
  'definition',
  'subflows',
  'input',
  'constants',
  'secrets',
  'adapters',
  'functions',
  'events',
  'expect',
]);
const EXPECT_FIELDS = new Set([
  'status',
  'output',
  'outputContains',
  'error',
  'calls',
  'producedEvents',
  'states',
  'historyExcludes',
]);
const RULE_FIELDS = new Set(['when', 'times', 'result', 'error', 'delay']);
const STATUSES: CaseStatus[] = ['completed', 'failed', 'terminated', 'invalid'];

function isObject(v: unknown): v is Record<string, Json> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Reads and checks a case file. Throws {@link CaseError} naming the file and field. */
export function loadCaseFile(file: string): TestCase {
  const abs = resolve(file);
  let text: string;
  try {
    text = readFileSync(abs, 'utf8');
  } catch (err) {
    throw new CaseError(abs, '', `cannot read the case file: ${(err as Error).message}`);
  }
  let doc: unknown;
  try {
    doc = /\.json$/i.test(abs) ? JSON.parse(text) : parseYaml(text);
  } catch (err) {
    throw new CaseError(abs, '', `not valid ${/\.json$/i.test(abs) ? 'JSON' : 'YAML'}: ${(err as Error).message}`);
  }
  return parseCase(doc, abs);
}

/** Checks a parsed case document; `file` is where it came from (paths resolve against it). */
export function parseCase(doc: unknown, file: string): TestCase {
  const fail = (field: string, problem: string): never => {
    throw new CaseError(file, field, problem);
  };
  if (!isObject(doc)) fail('', 'a case must be a mapping (object) of fields');
  const d = doc as Record<string, Json>;
  for (const key of Object.keys(d)) {
    if (!TOP_FIELDS.has(key)) fail(key, `unknown field (expected one of: ${[...TOP_FIELDS].join(', ')})`);
  }
  const baseDir = dirname(file);

  if (d.description !== undefined && typeof d.description !== 'string') fail('description', 'must be a string');

  // workflow / definition: exactly one
  const hasWorkflow = d.workflow !== undefined;
  const hasDefinition = d.definition !== undefined;
  if (hasWorkflow === hasDefinition) {
    fail(hasWorkflow ? 'workflow' : 'workflow/definition', 'give exactly one of `workflow` (a path) and `definition` (inline)');
  }
  let workflow: CaseDefinition;
  if (hasWorkflow) {
    if (typeof d.workflow !== 'string' || !d.workflow.trim()) fail('workflow', 'must be a path to a definition file');
    workflow = { kind: 'file', path: resolve(baseDir, d.workflow as string), label: d.workflow as string };
  } else {
    if (!isObject(d.definition)) fail('definition', 'must be an inline definition (a mapping)');
    workflow = { kind: 'inline', doc: d.definition as Record<string, Json>, label: 'definition' };
  }

  const subflows: CaseDefinition[] = [];
  if (d.subflows !== undefined) {
    if (!Array.isArray(d.subflows)) fail('subflows', 'must be a list of paths or inline definitions');
    (d.subflows as Json[]).forEach((s, i) => {
      if (typeof s === 'string') subflows.push({ kind: 'file', path: resolve(baseDir, s), label: s });
      else if (isObject(s)) subflows.push({ kind: 'inline', doc: s, label: `subflows[${i}]` });
      else fail(`subflows[${i}]`, 'must be a path or an inline definition');
    });
  }

  const input: Json = d.input === undefined || d.input === null ? {} : d.input;
  if (!isObject(input)) fail('input', 'must be a JSON object (the workflow data input)');

  let constants: Record<string, Json> | undefined;
  if (d.constants !== undefined) {
    if (!isObject(d.constants)) fail('constants', 'must be a mapping');
    constants = d.constants as Record<string, Json>;
  }

  const secrets: Record<string, string> = {};
  if (d.secrets !== undefined) {
    if (!isObject(d.secrets)) fail('secrets', 'must be a mapping of NAME: value');
    for (const [k, v] of Object.entries(d.secrets as Record<string, Json>)) {
      if (v === null || typeof v === 'object') fail(`secrets.${k}`, 'must be a string (or number/boolean)');
      secrets[k] = String(v);
    }
  }

  const functions: Record<string, MockRule[]> = {};
  if (d.functions !== undefined && d.functions !== null) {
    if (!isObject(d.functions)) fail('functions', 'must be a mapping of function name to a list of rules');
    for (const [name, rules] of Object.entries(d.functions as Record<string, Json>)) {
      const list = Array.isArray(rules) ? rules : isObject(rules) ? [rules] : fail(`functions.${name}`, 'must be a list of rules');
      functions[name] = (list as Json[]).map((r, i) => parseRule(r, `functions.${name}[${i}]`, fail));
    }
  }

  const events: CaseEvent[] = [];
  if (d.events !== undefined && d.events !== null) {
    if (!Array.isArray(d.events)) fail('events', 'must be a list of { at, event }');
    (d.events as Json[]).forEach((e, i) => {
      const field = `events[${i}]`;
      if (!isObject(e)) return fail(field, 'must be a mapping { at, event }');
      for (const k of Object.keys(e)) if (k !== 'at' && k !== 'event') fail(`${field}.${k}`, 'unknown field (expected at, event)');
      let at: EventTiming = { kind: 'waiting' };
      if (e.at !== undefined && e.at !== null) {
        if (typeof e.at !== 'string') fail(`${field}.at`, 'must be `waiting`, `start` or an ISO 8601 duration');
        const s = (e.at as string).trim();
        if (s === 'waiting') at = { kind: 'waiting' };
        else if (s === 'start') at = { kind: 'start' };
        else {
          const problem = durationProblem(s);
          if (problem) fail(`${field}.at`, `must be \`waiting\`, \`start\` or an ISO 8601 duration: ${problem}`);
          at = { kind: 'after', iso: s, ms: parseDuration(s) };
        }
      }
      if (!isObject(e.event)) return fail(`${field}.event`, 'must be a CloudEvent in structured JSON form (a mapping)');
      const ev = e.event as Record<string, Json>;
      if (typeof ev.type !== 'string' || !ev.type) fail(`${field}.event.type`, 'is required (a string)');
      if (ev.source !== undefined && typeof ev.source !== 'string') fail(`${field}.event.source`, 'must be a string');
      if (ev.id !== undefined && typeof ev.id !== 'string') fail(`${field}.event.id`, 'must be a string');
      events.push({ at, event: ev });
    });
    // start events must come first: they create the instance
    let seenOther = false;
    events.forEach((e, i) => {
      if (e.at.kind !== 'start') seenOther = true;
      else if (seenOther) fail(`events[${i}].at`, '`start` events must come before all other events (they create the instance)');
    });
  }

  const expect = parseExpect(d.expect, fail);

  const adapters: string[] = [];
  if (d.adapters !== undefined) {
    if (!Array.isArray(d.adapters) || !d.adapters.every((a) => typeof a === 'string' && a)) fail('adapters', 'must be a list of adapter module paths (relative to the case file) or `builtin`');
    for (const a of d.adapters as string[]) adapters.push(a === BUILTIN_ADAPTERS ? a : resolve(dirname(file), a));
  }

  return {
    name: caseNameOf(file),
    file,
    description: d.description as string | undefined,
    workflow,
    subflows,
    input,
    constants,
    secrets,
    adapters,
    functions,
    events,
    expect,
  };
}

/** In a case's `adapters`: swflow's built-in adapters (REST...). */
export const BUILTIN_ADAPTERS = 'builtin';

function parseRule(r: Json, field: string, fail: (field: string, problem: string) => never): MockRule {
  if (!isObject(r)) fail(field, 'a rule must be a mapping (when?, times?, result | error, delay?)');
  const rule = r as Record<string, Json>;
  for (const k of Object.keys(rule)) {
    if (!RULE_FIELDS.has(k)) fail(`${field}.${k}`, `unknown field (expected one of: ${[...RULE_FIELDS].join(', ')})`);
  }
  const out: MockRule = { hasResult: 'result' in rule };
  if (rule.when !== undefined) {
    if (typeof rule.when !== 'string' || !rule.when.trim()) fail(`${field}.when`, 'must be a jq condition string');
    out.when = rule.when as string;
  }
  if (rule.times !== undefined) {
    if (typeof rule.times !== 'number' || !Number.isInteger(rule.times) || rule.times < 1) {
      fail(`${field}.times`, 'must be a positive integer');
    }
    out.times = rule.times as number;
  }
  if ('result' in rule && 'error' in rule) fail(field, 'give either `result` or `error`, not both');
  if ('result' in rule) out.result = rule.result;
  if ('error' in rule) {
    const e = rule.error;
    if (!isObject(e)) return fail(`${field}.error`, 'must be { code, message }');
    if (e.code === undefined || e.code === null || typeof e.code === 'object') fail(`${field}.error.code`, 'is required (a string)');
    if (e.message !== undefined && typeof e.message !== 'string') fail(`${field}.error.message`, 'must be a string');
    out.error = { code: String(e.code), message: (e.message as string | undefined) ?? `error ${String(e.code)}` };
  }
  if (rule.delay !== undefined) {
    const problem = durationProblem(rule.delay);
    if (problem) fail(`${field}.delay`, problem);
    out.delay = rule.delay as string;
    out.delayMs = parseDuration(rule.delay as string);
  }
  if (!('result' in rule) && !('error' in rule) && rule.delay === undefined) {
    fail(field, 'a rule needs `result` or `error` (or at least `delay`)');
  }
  return out;
}

function parseExpect(e: Json | undefined, fail: (field: string, problem: string) => never): CaseExpect {
  const out: CaseExpect = { status: 'completed', hasOutput: false, hasOutputContains: false };
  if (e === undefined || e === null) return out;
  if (!isObject(e)) return fail('expect', 'must be a mapping');
  for (const k of Object.keys(e)) {
    if (!EXPECT_FIELDS.has(k)) fail(`expect.${k}`, `unknown field (expected one of: ${[...EXPECT_FIELDS].join(', ')})`);
  }
  if (e.status !== undefined) {
    if (!STATUSES.includes(e.status as CaseStatus)) fail('expect.status', `must be one of ${STATUSES.join(', ')}`);
    out.status = e.status as CaseStatus;
  }
  if ('output' in e) {
    out.output = e.output;
    out.hasOutput = true;
  }
  if ('outputContains' in e) {
    out.outputContains = e.outputContains;
    out.hasOutputContains = true;
  }
  if (e.error !== undefined && e.error !== null) {
    if (!isObject(e.error)) fail('expect.error', 'must be { messageContains }');
    const err = e.error as Record<string, Json>;
    for (const k of Object.keys(err)) if (k !== 'messageContains') fail(`expect.error.${k}`, 'unknown field (expected messageContains)');
    if (err.messageContains !== undefined && typeof err.messageContains !== 'string') {
      fail('expect.error.messageContains', 'must be a string');
    }
    out.error = { messageContains: err.messageContains as string | undefined };
  }
  if (out.status === 'invalid' && !out.error?.messageContains) {
    fail('expect.error.messageContains', 'is required with `status: invalid`');
  }
  if (e.calls !== undefined && e.calls !== null) {
    if (!Array.isArray(e.calls)) fail('expect.calls', 'must be a list of { function, arguments? }');
    out.calls = (e.calls as Json[]).map((c, i) => {
      if (typeof c === 'string') return { function: c, hasArguments: false };
      if (!isObject(c) || typeof c.function !== 'string') return fail(`expect.calls[${i}]`, 'must be { function: <name>, arguments?: ... }');
      for (const k of Object.keys(c)) if (k !== 'function' && k !== 'arguments') fail(`expect.calls[${i}].${k}`, 'unknown field');
      return { function: c.function as string, arguments: c.arguments, hasArguments: 'arguments' in c };
    });
  }
  if (e.producedEvents !== undefined && e.producedEvents !== null) {
    if (!Array.isArray(e.producedEvents)) fail('expect.producedEvents', 'must be a list of { type, data? }');
    out.producedEvents = (e.producedEvents as Json[]).map((p, i) => {
      if (!isObject(p) || typeof p.type !== 'string') return fail(`expect.producedEvents[${i}]`, 'must be { type: <event type>, data?: ... }');
      for (const k of Object.keys(p)) if (k !== 'type' && k !== 'data') fail(`expect.producedEvents[${i}].${k}`, 'unknown field');
      return { type: p.type as string, data: p.data, hasData: 'data' in p };
    });
  }
  if (e.states !== undefined && e.states !== null) {
    if (!Array.isArray(e.states) || !(e.states as Json[]).every((s) => typeof s === 'string')) {
      fail('expect.states', 'must be a list of state names');
    }
    out.states = e.states as string[];
  }
  if (e.historyExcludes !== undefined && e.historyExcludes !== null) {
    if (!Array.isArray(e.historyExcludes) || !(e.historyExcludes as Json[]).every((s) => typeof s === 'string' && s !== '')) {
      fail('expect.historyExcludes', 'must be a list of non-empty strings');
    }
    out.historyExcludes = e.historyExcludes as string[];
  }
  return out;
}
