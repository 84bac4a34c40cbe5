/**
 * `swflow run` following a run (src/cli/follow.ts) against fake runs whose `state` query answers
 * as the workflow does (src/workflow/host/state-progress.ts), or as a worker that predates the
 * `since` argument (the whole InstanceState). No server.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { InstanceState, StateProgress, StateQueryArg } from '../../src/common/contracts';
import { RunFollower, type AskState } from '../../src/cli/follow';
import { stateProgress, stateSince, PROGRESS_PAGE } from '../../src/workflow/host/state-progress';

interface FakeRun {
  runId: string;
  continuedFrom?: string;
  path: string[];
  carried: number;
  awaited: string[];
}

/** A chain of runs of one workflow id; `old`: answers like a worker that ignores the query's argument. */
class FakeChain {
  runs: FakeRun[] = [];
  answers: (InstanceState | StateProgress)[] = [];
  old = false;
  asked: { runId?: string; arg: StateQueryArg }[] = [];

  constructor(firstRunId = 'r1') {
    this.runs.push({ runId: firstRunId, path: [], carried: 0, awaited: [] });
  }

  get latest(): FakeRun {
    return this.runs[this.runs.length - 1];
  }

  enter(...names: string[]): void {
    this.latest.path.push(...names);
  }

  /** Continues as new: the next run starts with the last `kept` entries of this one (the host's carry). */
  continueAsNew(kept = 100): void {
    const prev = this.latest;
    const carried = prev.path.slice(-kept);
    this.runs.push({ runId: `r${this.runs.length + 1}`, continuedFrom: prev.runId, path: [...carried], carried: carried.length, awaited: [] });
  }

  ask: AskState = async (runId, arg) => {
    this.asked.push({ ...(runId ? { runId } : {}), arg });
    const run = runId ? this.runs.find((r) => r.runId === runId)! : this.latest;
    const since = stateSince(arg);
    const answer: InstanceState | StateProgress =
      this.old || !since
        ? { definitionId: 'd', currentStates: [], statesEntered: [...run.path], data: { big: 'x'.repeat(100) }, awaitedEvents: run.awaited, status: 'running' }
        : stateProgress(since, { runId: run.runId, ...(run.continuedFrom ? { continuedFrom: run.continuedFrom } : {}), entered: run.path, carried: run.carried, definitionId: 'd', currentStates: [], awaitedEvents: run.awaited, status: 'running' });
    this.answers.push(answer);
    return answer;
  };
}

function follower(chain: FakeChain) {
  const lines: string[] = [];
  const f = new RunFollower(chain.runs[0].runId, (runId, arg) => chain.ask(runId, arg), (l) => lines.push(l));
  const steps = () => lines.filter((l) => l.startsWith('→ ')).map((l) => l.slice(2));
  return { f, lines, steps };
}

const names = (prefix: string, n: number, from = 0) => Array.from({ length: n }, (_, i) => `${prefix}${from + i}`);
const entriesReceived = (answers: (InstanceState | StateProgress)[]) => answers.reduce((n, a) => n + ('progress' in a ? a.entered.length : a.statesEntered.length), 0);

test('stateSince: only an object with a `since` object asks for progress; entered is a count', () => {
  assert.equal(stateSince(undefined), undefined);
  assert.equal(stateSince(null), undefined);
  assert.equal(stateSince('since'), undefined);
  assert.equal(stateSince([{ since: { entered: 1 } }]), undefined);
  assert.equal(stateSince({ since: 3 }), undefined);
  assert.deepEqual(stateSince({ since: {} }), { entered: 0 });
  assert.deepEqual(stateSince({ since: { runId: 'r', entered: 7.9 } }), { runId: 'r', entered: 7 });
  assert.deepEqual(stateSince({ since: { runId: 5, entered: -2 } }), { entered: 0 });
  assert.deepEqual(stateSince({ since: { entered: Infinity } }), { entered: 0 });
});

test('stateProgress: the entries from `since` in this run (a page at most), from 0 for another run; no data', () => {
  const run = { runId: 'b', continuedFrom: 'a', entered: names('s', 12), carried: 4, definitionId: 'd', currentStates: ['/do/1'], awaitedEvents: ['t'], status: 'running' as const };
  const p = stateProgress({ runId: 'b', entered: 5 }, run, 3);
  assert.deepEqual(p, { progress: true, definitionId: 'd', runId: 'b', continuedFrom: 'a', from: 5, entered: ['s5', 's6', 's7'], total: 12, carried: 4, currentStates: ['/do/1'], awaitedEvents: ['t'], status: 'running' });
  assert.deepEqual(stateProgress({ entered: 10 }, run).entered, ['s10', 's11'], 'no runId: this run');
  assert.deepEqual(stateProgress({ runId: 'a', entered: 10 }, run, 2), { ...p, from: 0, entered: ['s0', 's1'] }, 'another run: from this run’s start');
  assert.deepEqual(stateProgress({ runId: 'b', entered: 99 }, run).entered, [], 'past the end: nothing');
  assert.equal(stateProgress({ runId: 'b', entered: 99 }, run).from, 12);
  assert.equal(stateProgress({ entered: 0 }, { ...run, entered: [], carried: 4 }).carried, 0, 'not more carried than there are');
});

test('each poll prints and receives only the steps entered since the last one', async () => {
  const chain = new FakeChain();
  const { f, steps } = follower(chain);
  const expected: string[] = [];
  for (let poll = 0; poll < 50; poll++) {
    const batch = names('t', poll % 7, expected.length);
    chain.enter(...batch);
    expected.push(...batch);
    await f.poll();
    assert.deepEqual(steps(), expected);
  }
  assert.equal(entriesReceived(chain.answers), expected.length);
  assert.ok(chain.answers.every((a) => 'progress' in a && !('data' in a)));
  // Each answer starts where the one before ended.
  let at = 0;
  for (const a of chain.answers as StateProgress[]) {
    assert.equal(a.from, at);
    at += a.entered.length;
  }
});

test('more than a page between two polls: the follower asks again at once, every entry once', async () => {
  const chain = new FakeChain();
  const { f, steps } = follower(chain);
  chain.enter(...names('t', PROGRESS_PAGE * 2 + 17));
  await f.poll();
  assert.equal(steps().length, PROGRESS_PAGE * 2 + 17);
  assert.deepEqual(steps(), chain.latest.path);
  assert.equal(chain.answers.length, 3);
  assert.equal(entriesReceived(chain.answers), PROGRESS_PAGE * 2 + 17);
});

test('an older worker answers the whole InstanceState: the entries past those printed are printed, and awaited events come through', async () => {
  const chain = new FakeChain();
  chain.old = true;
  const { f, steps } = follower(chain);
  chain.enter('a', 'b');
  chain.latest.awaited = ['go'];
  assert.deepEqual(await f.poll(), ['go']);
  assert.deepEqual(await f.poll(), ['go']);
  chain.enter('c');
  chain.latest.awaited = [];
  assert.deepEqual(await f.poll(), []);
  assert.deepEqual(steps(), ['a', 'b', 'c']);
  // A worker of the new kind takes over in the middle (a rolling upgrade): it goes on where the old one stopped.
  chain.old = false;
  chain.enter('d');
  await f.poll();
  assert.deepEqual(steps(), ['a', 'b', 'c', 'd']);
});

test('continue-as-new between polls: the rest of the run followed, then the new run after its carried entries; no entry twice, none skipped', async () => {
  const chain = new FakeChain();
  const { f, lines, steps } = follower(chain);
  const expected: string[] = [];
  const enter = (...n: string[]) => (chain.enter(...n), expected.push(...n));
  enter(...names('a', 30));
  await f.poll();
  enter(...names('a', 250, 30)); // more than the carry keeps, after the last poll
  chain.continueAsNew();
  enter('loop', ...names('b', 40));
  await f.poll();
  assert.deepEqual(steps(), expected);
  // Two continue-as-new between polls, one of them with a run shorter than the carry.
  enter(...names('b', 5, 40));
  chain.continueAsNew();
  enter(...names('c', 3));
  chain.continueAsNew();
  enter(...names('d', 500));
  await f.poll();
  await f.poll();
  assert.deepEqual(steps(), expected);
  assert.equal(lines.length, expected.length, 'no note: every run was linked');
  // Received: each entry once, plus the carried entries of each new run (at most 100 each).
  assert.ok(entriesReceived(chain.answers) <= expected.length + 100 * (chain.runs.length - 1), `${entriesReceived(chain.answers)}`);
});

test('a failed query while catching up with a new run: the next poll tries again from where it was; after three, the follower moves on', async () => {
  const chain = new FakeChain();
  const { f, lines, steps } = follower(chain);
  const expected: string[] = [];
  const enter = (...n: string[]) => (chain.enter(...n), expected.push(...n));
  let failing = 1;
  const ask = chain.ask;
  chain.ask = async (runId, arg) => {
    // The closed run answers by replay: here, its query times out `failing` times.
    if (runId === 'r1' && failing > 0) {
      failing--;
      throw new Error('replay timed out');
    }
    return ask(runId, arg);
  };
  enter(...names('a', 10));
  await f.poll();
  enter(...names('a', 10, 10));
  chain.continueAsNew();
  enter(...names('b', 10));
  await assert.rejects(f.poll(), /replay timed out/);
  await f.poll();
  assert.deepEqual(steps(), expected);

  // Three polls in a row fail to catch up: the new run's own steps, after a note.
  enter(...names('b', 5, 10));
  chain.continueAsNew();
  enter(...names('c', 5));
  failing = 0;
  chain.ask = async (runId, arg) => {
    if (runId === 'r2') throw new Error('no worker');
    return ask(runId, arg);
  };
  await assert.rejects(f.poll());
  await assert.rejects(f.poll());
  await f.poll();
  assert.deepEqual(steps(), [...expected.slice(0, -10), ...names('c', 5)]);
  assert.ok(lines.some((l) => /now following run r3: steps between it and the run followed so far may be missing/.test(l)), lines.join('\n'));
});

test('a new run that does not continue the one followed (its runs do not answer): a note, then its own steps', async () => {
  const chain = new FakeChain();
  const { f, lines, steps } = follower(chain);
  chain.enter('a', 'b');
  await f.poll();
  // A run that names no run it continued from (e.g. a reset of the first run).
  chain.runs.push({ runId: 'x', path: ['a', 'c'], carried: 0, awaited: [] });
  await f.poll();
  assert.deepEqual(steps(), ['a', 'b', 'a', 'c']);
  assert.ok(lines.some((l) => /now following run x/.test(l)), lines.join('\n'));
});
