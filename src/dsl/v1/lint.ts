/**
 * Likely mistakes in a 1.0 document that is valid (the schema and ./semantic.ts accept it) but
 * would not do what its author meant, found before a run: warnings (refused only with --strict),
 * each with the fix as its hint. Only where the spec makes the outcome certain:
 * - an event filter's `with` holding a keyword of the filter or of the listen (`correlate`, a
 *   correlation `{ from }`, `until`, …): `with` maps event attributes to the values events must
 *   have, so the filter waits for an attribute no event carries;
 * - a `with` key that is not a CloudEvents core attribute but a near miss of one (`sorce`, `typ`,
 *   `dataContentType`): extension attributes are allowed, so only edit distance 2 of a long name,
 *   a letter missing, extra or swapped in a short one, of an attribute the same `with` does not
 *   give, and never a documented extension;
 * - a task reading a field of its input right after an `emit` task: the emit's output is the event
 *   it emitted (CTK emit.feature: the workflow output has id, specversion, time, source, type,
 *   data), so `.orderId` is null there unless the emit's `output.as` says otherwise.
 * A `then` naming a task of another list is already an error (./semantic.ts, whose hint says
 * which list holds the task).
 */
import type { Reporter } from '../findings';
import { joinPointer } from '../source';
import { isObj, type Obj } from '../v08/walk';
import { parseFastPath } from '../../expr/fastpath';
import { taskTypeOf, type Task } from '../../common/model-v1';
import { taskLists, type TaskList } from './walk';
import { CORE_ATTRIBUTES, nearAttribute } from '../attributes';

/** Keys of the listen, its consumption strategy and its event filter: misplaced when written under `with`. */
const MISPLACED: Record<string, string> = {
  correlate: 'beside with (both belong under the event filter)',
  with: 'one level up: the event filter has a single with',
  one: 'under listen.to, not inside an event filter',
  any: 'under listen.to, not inside an event filter',
  all: 'under listen.to, not inside an event filter',
  until: 'under listen.to, beside any (it ends the listening; it filters no event)',
  read: "under listen, beside to (it says what the task outputs: data, envelope or raw)",
  foreach: 'under the listen task, beside listen (it runs for each consumed event)',
};

const EXPRESSION_RE = /^\s*\$\{([\s\S]+)\}\s*$/;
/** A path at the very start of an expression (`.a.b`), not `..`. */
const LEADING_PATH = /^\s*((?:\.[A-Za-z_][A-Za-z0-9_]*)+)(?![A-Za-z0-9_(])/;
const DIRECTIVES = new Set(['continue', 'exit', 'end']);

export function lintV1(doc: Obj, rep: Reporter): void {
  const lists = taskLists(doc);
  for (const l of lists) {
    for (const t of l.tasks) {
      const type = taskTypeOf(t.task);
      if (type === 'listen' && isObj(t.task.listen)) lintStrategy(rep, (t.task.listen as Obj).to, `${t.pointer}/listen/to`);
      if (type === 'emit' && isObj(t.task.emit) && isObj((t.task.emit as Obj).event)) lintAttributes(rep, ((t.task.emit as Obj).event as Obj).with, `${t.pointer}/emit/event/with`, false);
    }
    // Fork branches run concurrently (none feeds the next); an extension's `after` list may replace a task's output.
    if (!l.fork && !(isObj(doc.use) && Array.isArray(doc.use.extensions) && doc.use.extensions.length)) lintAfterEmit(rep, l);
  }
  if (isObj(doc.schedule)) lintStrategy(rep, doc.schedule.on, '/schedule/on');
}

/** The event filters of a consumption strategy (`one`, `any`, `all`, and `until` when it is one). */
function lintStrategy(rep: Reporter, s: unknown, pointer: string): void {
  if (!isObj(s)) return;
  if (isObj(s.one)) lintFilter(rep, s.one, `${pointer}/one`);
  for (const k of ['any', 'all']) if (Array.isArray(s[k])) s[k].forEach((f: unknown, i: number) => lintFilter(rep, f, `${pointer}/${k}/${i}`));
  if (isObj(s.until)) lintStrategy(rep, s.until, `${pointer}/until`);
}

function lintFilter(rep: Reporter, f: unknown, pointer: string): void {
  if (isObj(f)) lintAttributes(rep, f.with, `${pointer}/with`, true);
}

/** The keys of an event's `with` (a filter's, or an emitted event's). */
function lintAttributes(rep: Reporter, w: unknown, pointer: string, filter: boolean): void {
  if (!isObj(w)) return;
  const keys = Object.keys(w);
  for (const key of keys) {
    const at = `${pointer}${joinPointer(key)}`;
    const value = w[key];
    if (filter && Object.hasOwn(MISPLACED, key)) {
      const hint = key === 'correlate' ? `did you mean to put correlate ${MISPLACED[key]}? one: { with: { type: … }, correlate: { <name>: { from: … } } }` : `did you mean to put ${key} ${MISPLACED[key]}?`;
      rep.warn(at, `'${key}' under 'with' is read as an event attribute named '${key}' that events must carry, not as the ${key === 'correlate' ? "filter's correlation" : key === 'with' ? "filter's with" : `listen's '${key}'`}: no event matches`, hint, { key: true });
      continue;
    }
    // A correlation ({ from, expect? }) written straight under with: an attribute's value is never an object.
    if (filter && key !== 'data' && isObj(value) && typeof value.from === 'string' && Object.keys(value).every((k) => k === 'from' || k === 'expect')) {
      rep.warn(at, `'${key}' under 'with' is a correlation (from/expect), read as an event attribute '${key}' that must equal an object: no event matches`, `did you mean correlate: { ${key}: { from: … } } beside with?`, { key: true });
      continue;
    }
    const near = nearAttribute(key, keys, filter);
    if (near) {
      const effect = filter ? 'the filter waits for events that carry an extension attribute of that name' : 'the event is emitted with an extension attribute of that name';
      rep.warn(at, `'${key}' is not a CloudEvents attribute; did you mean '${near}'? (as written, ${effect})`, `write '${near}' (the core attributes: id, source, type, subject, time, datacontenttype, dataschema, specversion; and data)`, { key: true });
    }
  }
}

/**
 * A task that reads a field of its input right after an emit task. Certain only when the emit's
 * output is the event (no `output.as`, no `if` that could skip it and pass its input on) and the
 * reading task is reached from the emit alone (no other `then` to it, not the list's first task).
 */
function lintAfterEmit(rep: Reporter, l: TaskList): void {
  const byName = new Map(l.tasks.map((t) => [t.name, t]));
  const next = (t: TaskList['tasks'][number]): TaskList['tasks'][number] | undefined => {
    const then = t.task.then;
    if (typeof then === 'string' && then !== 'continue') return DIRECTIVES.has(then) ? undefined : byName.get(then);
    return l.tasks.find((x) => x.index === t.index + 1);
  };
  const jumpsTo = (target: string, from: TaskList['tasks'][number]): boolean => {
    const task = from.task;
    if (task.then === target) return true;
    if (Array.isArray(task.switch) && task.switch.some((c) => isObj(c) && Object.values(c).some((b) => isObj(b) && b.then === target))) return true;
    return isObj(task.catch) && task.catch.then === target;
  };
  for (const emit of l.tasks) {
    if (taskTypeOf(emit.task) !== 'emit' || emit.task.if !== undefined) continue;
    if (isObj(emit.task.output) && emit.task.output.as !== undefined) continue;
    const reader = next(emit);
    if (!reader || reader.index === 0) continue;
    // Other ways in: a flow directive to it, or falling through from the task before it (a switch can, when no case matches).
    const others = l.tasks.filter((t) => t !== emit && (jumpsTo(reader.name, t) || (t.index === reader.index - 1 && (next(t) === reader || t.task.switch !== undefined))));
    if (others.length) continue;
    const w = isObj(emit.task.emit) && isObj((emit.task.emit as Obj).event) && isObj(((emit.task.emit as Obj).event as Obj).with) ? (((emit.task.emit as Obj).event as Obj).with as Obj) : {};
    const fields = new Set([...CORE_ATTRIBUTES, ...Object.keys(w), ...Object.keys(w).map((k) => k.toLowerCase())]);
    for (const { pointer, path } of inputReads(reader.task, reader.pointer)) {
      const field = path[0];
      if (typeof field !== 'string' || fields.has(field)) continue;
      rep.warn(
        pointer,
        `'.${path.join('.')}' reads the output of '${emit.name}' (line ${rep.map.locate(emit.pointer, true).line ?? '?'}), an emit task, whose output is the event it emitted: it has no '${field}', so this is null`,
        `did you mean to keep the data? give '${emit.name}' output: { as: '\${ $input }' } (its input passes on), or read the field before the emit`,
      );
    }
  }
}

/** Task keys whose expressions are not evaluated on the task's input (or not as one path). */
const NOT_ON_INPUT = new Set(['output', 'export', 'then', 'metadata', 'timeout', 'do', 'try', 'catch', 'fork', 'listen', 'foreach', 'while', 'switch']);

/**
 * The fields a task reads at the root of its input, as plain paths (`${ .a.b }`, or bare `.a.b` where
 * a key always holds an expression): with `input.from`, only it reads the raw input.
 */
function inputReads(task: Task, tp: string): { pointer: string; path: (string | number)[] }[] {
  const out: { pointer: string; path: (string | number)[] }[] = [];
  const consider = (v: string, pointer: string, bare: boolean) => {
    const m = EXPRESSION_RE.exec(v);
    const src = m ? m[1] : bare ? v : undefined;
    if (src === undefined) return;
    const p = parseFastPath(src);
    if (p && p.root === '.' && p.steps.length) out.push({ pointer, path: p.steps });
    else {
      // The first term of an expression reads the root input (`.total > 100`, `.items | length`), unless an
      // alternative (`//`) or `?` says the author expects it missing.
      const lead = LEADING_PATH.exec(src);
      if (lead && !/^\s*(\/\/|\?)/.test(src.slice(lead[0].length))) out.push({ pointer, path: lead[1].split('.').slice(1) });
    }
  };
  const visit = (v: unknown, pointer: string, bare: boolean) => {
    if (typeof v === 'string') consider(v, pointer, bare);
    else if (Array.isArray(v)) v.forEach((x, i) => visit(x, `${pointer}/${i}`, false));
    else if (isObj(v)) for (const [k, x] of Object.entries(v)) visit(x, `${pointer}${joinPointer(k)}`, false);
  };
  const t = task as Obj;
  if (isObj(t.input) && t.input.from !== undefined) {
    visit(t.input.from, `${tp}/input/from`, true);
    return out;
  }
  if (typeof t.if === 'string') consider(t.if, `${tp}/if`, true);
  if (Array.isArray(t.switch)) {
    t.switch.forEach((c: unknown, j: number) => {
      if (!isObj(c) || Object.keys(c).length !== 1) return;
      const [name, body] = Object.entries(c)[0];
      if (isObj(body) && typeof body.when === 'string') consider(body.when, `${tp}${joinPointer('switch', j, name, 'when')}`, true);
    });
  }
  for (const [k, v] of Object.entries(t)) {
    if (k === 'if' || k === 'input' || NOT_ON_INPUT.has(k)) continue;
    if (k === 'for' && isObj(v)) {
      if (typeof v.in === 'string') consider(v.in, `${tp}/for/in`, true);
      continue;
    }
    if (k === 'with' && isObj(v) && t.call === 'asyncapi' && v.subscription !== undefined) continue;
    visit(v, `${tp}${joinPointer(k)}`, k === 'set' && typeof v === 'string');
  }
  return out;
}
