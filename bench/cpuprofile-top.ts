/**
 * The functions a V8 CPU profile spent its time in: self time, and inclusive time (a function and
 * what it called), by function and source place.
 *
 *   node --cpu-prof --cpu-prof-dir=/tmp/prof --import tsx src/cli/main.ts validate big.sw.json
 *   npx tsx bench/cpuprofile-top.ts /tmp/prof/CPU.*.0.001.cpuprofile [how many, default 30]
 *
 * (`.0.001` is the main thread's profile; others are worker threads.)
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

const [file, many = '30'] = process.argv.slice(2);
if (!file) {
  console.error('usage: npx tsx bench/cpuprofile-top.ts <file.cpuprofile> [n]');
  process.exit(2);
}
const profile = JSON.parse(readFileSync(file, 'utf8')) as { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] };
const n = Number(many);
const byId = new Map(profile.nodes.map((x) => [x.id, x]));
const parent = new Map<number, number>();
for (const x of profile.nodes) for (const c of x.children ?? []) parent.set(c, x.id);
const name = (id: number) => {
  const f = byId.get(id)!.callFrame;
  return `${f.functionName || '(anonymous)'} ${f.url.replace(/^.*\/(src|node_modules|adapters)\//, '$1/')}:${f.lineNumber + 1}`;
};

const self = new Map<string, number>();
const inclusive = new Map<string, number>();
let total = 0;
profile.samples.forEach((id, i) => {
  const us = profile.timeDeltas[i] ?? 0;
  total += us;
  self.set(name(id), (self.get(name(id)) ?? 0) + us);
  const seen = new Set<string>(); // recursion counts once
  for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
    const k = name(cur);
    if (seen.has(k)) continue;
    seen.add(k);
    inclusive.set(k, (inclusive.get(k) ?? 0) + us);
  }
});

const top = (m: Map<string, number>) => [...m].sort((a, b) => b[1] - a[1]).slice(0, n).map(([k, us]) => `${(us / 1000).toFixed(0).padStart(7)} ms  ${k}`).join('\n');
console.log(`total ${(total / 1000).toFixed(0)} ms\n\nself time:\n${top(self)}\n\ninclusive time:\n${top(inclusive)}`);
