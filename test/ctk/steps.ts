/**
 * The conformance kit's Gherkin steps (ctk/README.md), run against swflow: Arrange steps collect
 * the definition and input, `the workflow is executed` runs it through the real interpreter on a
 * real Temporal server, Assert steps check the outcome. A step no pattern knows fails the scenario.
 */
import assert from 'node:assert/strict';
import { parse as parseYaml } from 'yaml';
import type { Json } from '../../src/common/model';

export interface Outcome {
  status: 'completed' | 'faulted' | 'cancelled';
  output?: Json;
  /** The RFC 7807 problem of a faulted run. */
  error?: Json;
  message?: string;
  /** Task names in the order they started. */
  tasks: string[];
}

export interface World {
  definition?: string;
  input?: Json;
  outcome?: Outcome;
  execute(world: World): Promise<Outcome>;
}

type Step = { re: RegExp; run: (w: World, m: RegExpMatchArray, doc?: string) => Promise<void> | void };

const yaml = (doc: string | undefined): Json => parseYaml(doc ?? '') as Json;

function at(value: Json | undefined, path: string): { found: boolean; value?: Json } {
  let cur: Json | undefined = value;
  for (const key of path.split('.')) {
    if (cur === null || typeof cur !== 'object' || !(key in (cur as Record<string, Json>))) return { found: false };
    cur = (cur as Record<string, Json>)[key];
  }
  return { found: true, value: cur };
}

function completed(w: World): Json | undefined {
  assert.ok(w.outcome, 'the workflow was not executed');
  assert.equal(w.outcome.status, 'completed', `the workflow did not complete: ${w.outcome.status}${w.outcome.message ? ` (${w.outcome.message})` : ''}`);
  return w.outcome.output;
}

function order(w: World, task: string): number {
  const i = w.outcome?.tasks.indexOf(task) ?? -1;
  assert.ok(i >= 0, `task ${task} did not run (ran: ${w.outcome?.tasks.join(', ')})`);
  return i;
}

export const STEPS: Step[] = [
  { re: /^a workflow with definition:$/, run: (w, _m, doc) => void (w.definition = doc) },
  { re: /^(?:given )?the workflow input is:$/, run: (w, _m, doc) => void (w.input = yaml(doc)) },
  { re: /^the workflow is executed$/, run: async (w) => void (w.outcome = await w.execute(w)) },
  { re: /^the workflow should complete$/, run: (w) => void completed(w) },
  { re: /^the workflow should complete with output:$/, run: (w, _m, doc) => assert.deepEqual(completed(w), yaml(doc)) },
  { re: /^the workflow should cancel$/, run: (w) => assert.equal(w.outcome?.status, 'cancelled') },
  { re: /^the workflow should fault$/, run: (w) => assert.equal(w.outcome?.status, 'faulted', `expected a fault, got ${w.outcome?.status}`) },
  {
    re: /^the workflow should fault with error:$/,
    run: (w, _m, doc) => {
      assert.equal(w.outcome?.status, 'faulted', `expected a fault, got ${w.outcome?.status}`);
      const want = yaml(doc) as Record<string, Json>;
      for (const [k, v] of Object.entries(want)) assert.deepEqual((w.outcome!.error as Record<string, Json>)?.[k], v, `error.${k}`);
    },
  },
  {
    re: /^the workflow output should have properties (.+)$/,
    run: (w, m) => {
      const out = completed(w);
      for (const [, p] of m[1].matchAll(/'([^']*)'/g)) assert.ok(at(out, p).found, `output has no property '${p}': ${JSON.stringify(out)}`);
    },
  },
  {
    re: /^the workflow output should have a '([^']*)' property with value:$/,
    run: (w, m, doc) => {
      const r = at(completed(w), m[1]);
      assert.ok(r.found, `output has no property '${m[1]}'`);
      assert.deepEqual(r.value, yaml(doc));
    },
  },
  {
    re: /^the workflow output should have a '([^']*)' property containing (\d+) items$/,
    run: (w, m) => {
      const r = at(completed(w), m[1]);
      assert.ok(r.found && Array.isArray(r.value), `output property '${m[1]}' is not an array`);
      assert.equal((r.value as Json[]).length, Number(m[2]));
    },
  },
  { re: /^(\S+) should run first$/, run: (w, m) => assert.equal(order(w, m[1]), 0, `${m[1]} did not run first: ${w.outcome?.tasks.join(', ')}`) },
  { re: /^(\S+) should run last$/, run: (w, m) => assert.equal(w.outcome?.tasks.lastIndexOf(m[1]), w.outcome!.tasks.length - 1, `${m[1]} did not run last: ${w.outcome?.tasks.join(', ')}`) },
  { re: /^(\S+) should run before (\S+)$/, run: (w, m) => assert.ok(order(w, m[1]) < order(w, m[2]), `${m[1]} did not run before ${m[2]}`) },
  { re: /^(\S+) should run after (\S+)$/, run: (w, m) => assert.ok(order(w, m[1]) > order(w, m[2]), `${m[1]} did not run after ${m[2]}`) },
];

export async function runStep(w: World, text: string, doc: string | undefined): Promise<void> {
  for (const s of STEPS) {
    const m = text.match(s.re);
    if (m) return s.run(w, m, doc);
  }
  assert.fail(`no step matches "${text}"`);
}
