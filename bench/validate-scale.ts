/**
 * Validation at scale: generates valid definitions (deterministically: no randomness, the text
 * depends only on the sizes) and times `swflow validate` on them through the real CLI, one fresh
 * process each (`node --import tsx src/cli/main.ts validate <file>`), with its peak RSS
 * (/usr/bin/time -v when present, else the child's VmHWM read by polling /proc).
 *
 *   npx tsx bench/validate-scale.ts                 # the table of bench/README.md
 *   npx tsx bench/validate-scale.ts --cases 08-20k  # one case (names below)
 *   npx tsx bench/validate-scale.ts --write <dir>   # only write the documents (for --cpu-prof)
 *   npx tsx bench/validate-scale.ts --repeat 3      # median of 3 runs
 *
 * The 0.8 documents: N REST functions (`operation: https://…/api-<k>.json#op<i>`), M operation
 * states in a chain, each with two actions calling functions (every function is called), whose
 * arguments hold jq expressions, plus a stateDataFilter, a few switch states with data conditions
 * and expression functions called through `fn:`. Expressions repeat as they do in real documents
 * (the same `${ .order.id }` in many actions): a few hundred distinct texts in all.
 * `08-20k-distinct` adds a first state, a switch of 20,000 DISTINCT data conditions (five shapes,
 * each text different: a generated routing table), which no per-text cache can help.
 * The 1.0 documents: T tasks in `do` (call: http with expressions in `with`, set, switch, calls of
 * `use.functions`, `then` jumps forward), F functions under `use.functions`.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { stringify as toYaml } from 'yaml';
import { option, quantile, round } from './support';

const ROOT = resolve(__dirname, '..');

/** Distinct argument expressions: `DISTINCT` texts reused round-robin. */
const DISTINCT = 200;
const argExpr = (i: number) => (i % 4 === 0 ? '${ .order.id }' : i % 4 === 1 ? `\${ .items[${i % DISTINCT}].price * 2 }` : i % 4 === 2 ? `\${ [.lines[] | select(.n > ${i % 50}) | .sku] }` : 'Order ${ .order.id } of ${ .customer.name }');

/** A valid 0.8 document with `functions` REST functions and `states` states. */
export function document08(functions: number, states: number): Record<string, unknown> {
  const fns: Record<string, unknown>[] = [];
  for (let i = 0; i < functions; i++) fns.push({ name: `fn${i}`, operation: `https://api${i % 10}.example/openapi.json#op${i}`, type: 'rest' });
  for (let k = 0; k < 5; k++) fns.push({ name: `total${k}`, type: 'expression', operation: `\${ [.items[].price] | add + ${k} }` });
  const list: Record<string, unknown>[] = [];
  for (let i = 0; i < states; i++) {
    const next = i + 1 < states ? { transition: `S${i + 1}` } : { end: true };
    if (i % 50 === 49) {
      // A switch: data conditions (expressions), default to the next state.
      list.push({
        name: `S${i}`,
        type: 'switch',
        dataConditions: [{ condition: `\${ .order.total > ${i % 7} }`, ...next }, { condition: '${ fn:total1 > 100 }', ...next }],
        defaultCondition: next,
      });
      continue;
    }
    const call = (j: number) => {
      const f = (2 * i + j) % functions;
      const action: Record<string, unknown> = { functionRef: { refName: `fn${f}`, arguments: { id: argExpr(f), label: argExpr(f + 1), fixed: 42 } } };
      if (f % 4 === 0) action.actionDataFilter = { results: '${ .body }', toStateData: `\${ .r${f % 20} }` };
      return action;
    };
    const state: Record<string, unknown> = { name: `S${i}`, type: 'operation', actions: [call(0), call(1)], ...next };
    if (i % 10 === 0) state.stateDataFilter = { output: '${ del(.tmp) }' };
    list.push(state);
  }
  // Every function is called at least once (states × 2 ≥ functions unless states are fewer).
  return { id: `scale-${functions}-${states}`, version: '1.0', specVersion: '0.8', name: 'validation at scale', start: 'S0', functions: fns, states: list };
}

/** A valid 1.0 document with `tasks` tasks in `do` and `functions` functions under `use.functions`. */
export function document10(tasks: number, functions: number): Record<string, unknown> {
  const use: Record<string, unknown> = {};
  for (let i = 0; i < functions; i++) {
    use[`fn${i}`] = { call: 'http', with: { method: 'post', endpoint: `https://api${i % 10}.example/op${i}`, body: { id: '${ .id }', n: `\${ .n + ${i % 30} }` } } };
  }
  const list: Record<string, unknown>[] = [];
  for (let i = 0; i < tasks; i++) {
    const name = `t${i}`;
    const m = i % 5;
    let task: Record<string, unknown>;
    if (m === 0) task = { call: 'http', with: { method: 'get', endpoint: `https://svc.example/items/${i}`, headers: { 'x-order': argExpr(i) }, query: { q: argExpr(i + 1) } }, output: { as: '${ .content }' } };
    else if (m === 1) task = { set: { total: argExpr(i + 2), step: i, tag: argExpr(i + 3) } };
    else if (m === 2) task = { call: `fn${i % Math.max(1, functions)}`, with: { id: argExpr(i) }, if: `\${ .n > ${i % 40} }` };
    else if (m === 3) task = { switch: [{ big: { when: `\${ .total > ${i % 60} }`, then: i + 2 < tasks ? `t${i + 2}` : 'end' } }, { small: { then: 'continue' } }] };
    else task = { set: { a: '${ .a + 1 }' }, then: i + 1 < tasks ? `t${i + 1}` : 'end' };
    list.push({ [name]: task });
  }
  return { document: { dsl: '1.0.0', namespace: 'bench', name: `scale-${tasks}`, version: '1.0.0' }, use: { functions: use }, do: list };
}

/**
 * A distinct condition per index: five shapes (paths, comparisons, `select`, `//`, `any`,
 * string literals, `$CONST`), each text different, as a generated routing table would be.
 */
export const distinctCondition = (i: number): string =>
  [
    `\${ .orders[${i}].total > ${i} }`,
    `\${ .customer.tier == "tier-${i}" and (.items | length) > ${i % 17} }`,
    `\${ [.items[] | select(.price > ${i})] | length > 0 }`,
    `\${ (.score // 0) + ${i} >= $CONST.limit }`,
    `\${ .tags | any(. == "t${i}") }`,
  ][i % 5];

/**
 * {@link document08} whose first state is a switch of `conditions` DISTINCT data conditions
 * (each goes on to the chain): every condition is an expression never seen before, so each
 * costs its own jq check (the case `oncePerText` cannot help).
 */
export function document08Distinct(functions: number, states: number, conditions: number): Record<string, unknown> {
  const doc = document08(functions, states);
  const dataConditions = Array.from({ length: conditions }, (_, i) => ({ name: `c${i}`, condition: distinctCondition(i), transition: 'S0' }));
  const route = { name: 'Route', type: 'switch', dataConditions, defaultCondition: { transition: 'S0' } };
  return { ...doc, id: `distinct-${functions}-${conditions}`, start: 'Route', states: [route, ...(doc.states as unknown[])] };
}

interface Case {
  name: string;
  what: string;
  doc: () => Record<string, unknown>;
  yaml?: boolean;
}

const CASES: Case[] = [
  { name: '08-1k', what: '0.8, 1,000 functions, 500 states', doc: () => document08(1000, 500) },
  { name: '08-5k', what: '0.8, 5,000 functions, 2,500 states', doc: () => document08(5000, 2500) },
  { name: '08-20k', what: '0.8, 20,000 functions, 10,000 states', doc: () => document08(20000, 10000) },
  { name: '08-20k-yaml', what: '0.8, 20,000 functions, 10,000 states (YAML)', doc: () => document08(20000, 10000), yaml: true },
  { name: '08-20k-distinct', what: '0.8, 20,000 functions, 10,000 states, a switch of 20,000 distinct conditions', doc: () => document08Distinct(20000, 10000, 20000) },
  { name: '08-30k-states', what: '0.8, 100 functions, 30,000 states', doc: () => document08(100, 30000) },
  { name: '10-5k', what: '1.0, 5,000 tasks, 500 functions', doc: () => document10(5000, 500) },
  { name: '10-20k', what: '1.0, 20,000 tasks, 2,000 functions', doc: () => document10(20000, 2000) },
  { name: '10-20k-yaml', what: '1.0, 20,000 tasks, 2,000 functions (YAML)', doc: () => document10(20000, 2000), yaml: true },
];

/** Writes a case's document; returns its path and size. */
function write(dir: string, c: Case): { file: string; bytes: number } {
  const file = join(dir, `${c.name}.sw.${c.yaml ? 'yaml' : 'json'}`);
  const text = c.yaml ? toYaml(c.doc(), { aliasDuplicateObjects: false }) : JSON.stringify(c.doc(), null, 2);
  writeFileSync(file, text);
  return { file, bytes: Buffer.byteLength(text) };
}

interface Run {
  seconds: number;
  /** CPU time (user + system), from /usr/bin/time -v (NaN without it): steadier than wall time on a shared machine. */
  cpu: number;
  rssMb: number;
  exit: number;
  out: string;
}

/** One `swflow validate <file>` in a fresh process. */
function validate(file: string): Promise<Run> {
  const timeV = existsSync('/usr/bin/time');
  const args = ['--import', 'tsx', 'src/cli/main.ts', 'validate', file];
  const t0 = process.hrtime.bigint();
  const child = timeV ? spawn('/usr/bin/time', ['-v', process.execPath, ...args], { cwd: ROOT }) : spawn(process.execPath, args, { cwd: ROOT });
  let out = '';
  let err = '';
  let polled = 0;
  const poll = timeV
    ? undefined
    : setInterval(() => {
        try {
          const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
          if (m) polled = Math.max(polled, Number(m[1]) / 1024);
        } catch {
          /* exited */
        }
      }, 20);
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (err += d));
  return new Promise((ok) =>
    child.on('close', (code) => {
      if (poll) clearInterval(poll);
      const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
      const m = /Maximum resident set size \(kbytes\): (\d+)/.exec(err);
      const user = /User time \(seconds\): ([\d.]+)/.exec(err);
      const sys = /System time \(seconds\): ([\d.]+)/.exec(err);
      ok({ seconds, cpu: user && sys ? Number(user[1]) + Number(sys[1]) : NaN, rssMb: m ? Number(m[1]) / 1024 : polled, exit: code ?? -1, out: out + (timeV ? err.replace(/\tCommand being timed[\s\S]*$/, '') : err) });
    }),
  );
}

async function main(): Promise<void> {
  const only = option('cases', '').split(',').filter(Boolean);
  const cases = only.length ? CASES.filter((c) => only.includes(c.name)) : CASES;
  const writeTo = option('write', '');
  const repeat = Number(option('repeat', '1'));
  if (writeTo) {
    mkdirSync(writeTo, { recursive: true });
    for (const c of cases) console.log(write(writeTo, c).file);
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), 'validate-scale-'));
  try {
    // The fixed cost of a run: Node, tsx, the CLI's modules, the jq engine (a one-state document).
    const tiny = write(dir, { name: 'tiny', what: '', doc: () => document08(1, 1) });
    const base = await validate(tiny.file);
    if (base.exit !== 0) throw new Error(`the one-state document does not validate:\n${base.out}`);
    console.log(`startup (one-state document): ${round(base.seconds, 2)} s wall, ${round(base.cpu, 2)} s CPU, ${Math.round(base.rssMb)} MB`);
    console.log('| document | size | wall s | CPU s | peak RSS MB |');
    console.log('|---|---|---|---|---|');
    for (const c of cases) {
      const { file, bytes } = write(dir, c);
      const runs: Run[] = [];
      for (let r = 0; r < repeat; r++) runs.push(await validate(file));
      const bad = runs.find((r) => r.exit !== 0 || !/: valid \(/.test(r.out));
      if (bad) throw new Error(`${c.name}: not valid (exit ${bad.exit}):\n${bad.out.slice(0, 3000)}`);
      const s = quantile(runs.map((r) => r.seconds), 0.5);
      const rss = quantile(runs.map((r) => r.rssMb), 0.5);
      const cpu = quantile(runs.map((r) => r.cpu), 0.5);
      console.log(`| ${c.what} | ${(bytes / 1e6).toFixed(1)} MB | ${round(s, 2)} | ${round(cpu, 2)} | ${Math.round(rss)} |`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (require.main === module) {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
