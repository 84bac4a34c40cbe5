/**
 * The gateway's routing of one event with 1,000 definitions in its folder against 1 (issue 34,
 * item 3, the gateway's part): what the gateway does per event before any Temporal call (the
 * definitions read from the registry, then `Dispatcher.plan`), in one process, CPU per event.
 *
 *   npx tsx bench/routing-scale.ts [--events 2000] [--rounds 5]
 *
 * Folders: `1` (only the routed definitions: bench/definitions' event-start 0.8 and event-wake
 * 1.0), `1000` (the same plus 998 others, half 0.8 JSON with an event state each, half 1.0 YAML
 * with a listen each, on other event types). Each folder three ways: `now` (the registry's watched
 * index, `indexedDefinitions`, then `Dispatcher.plan`, which routes the candidates of the event's
 * type: type-index.ts); `every definition` (the index, then routing.ts / routing-v1.ts over every
 * definition, as `plan` did before); `before` (that, with a listing and a stat of every file per
 * event, `allDefinitions`, as the gateway read them before). Rounds alternate the sides.
 */
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify as stringifyYaml } from 'yaml';
import type { Client } from '@temporalio/client';
import { DefinitionRegistry } from '../src/definitions/registry';
import { Dispatcher } from '../src/gateway/dispatch';
import { route } from '../src/gateway/routing';
import { routeV1 } from '../src/gateway/routing-v1';
import { isV1Definition, type V1Definition } from '../src/common/model-v1';
import type { CloudEventJson } from '../src/common/contracts';
import type { Definition } from '../src/common/model';
import { option, quantile, round } from './support';

const EVENTS = Number(option('events', '2000'));
const ROUNDS = Number(option('rounds', '5'));

function folder(others: number): string {
  const dir = mkdtempSync(join(tmpdir(), `swflow-routing-${others}-`));
  for (const f of ['event-start.sw.json', 'event-wake.sw.yaml']) copyFileSync(join(__dirname, 'definitions', f), join(dir, f));
  for (let i = 0; i < others; i++) {
    if (i % 2 === 0) {
      writeFileSync(join(dir, `other-${i}.sw.json`), JSON.stringify({ id: `other${i}`, version: '1.0', specVersion: '0.8', start: 'Wait', events: [{ name: 'E', type: `other.${i}`, source: 'bench' }], states: [{ name: 'Wait', type: 'event', onEvents: [{ eventRefs: ['E'] }], end: true }] }));
    } else {
      writeFileSync(join(dir, `other-${i}.sw.yaml`), stringifyYaml({ document: { dsl: '1.0.0', namespace: 'bench', name: `other-${i}`, version: '1.0.0' }, do: [{ wait: { listen: { to: { one: { with: { type: `other.${i}` } } } } } }] }));
    }
  }
  return dir;
}

async function main() {
  const dirs = { '1': folder(0), '1000': folder(998) };
  const dispatcher = new Dispatcher({ client: {} as Client, definitions: async () => [] });
  const event = (i: number) => ({ specversion: '1.0', id: `e${i}`, source: 'bench', type: 'bench.start', data: { n: i } });
  const cpu: Record<string, number[]> = {};
  const registries: DefinitionRegistry[] = [];
  try {
    /** What `plan` did before the type index: every definition through both routers. */
    const everyDefinition = (defs: Definition[], e: CloudEventJson) => [...route(defs.filter((d) => !isV1Definition(d)) as never, e), ...routeV1(defs.filter((d): d is V1Definition => isV1Definition(d)), e)];
    const planned = (defs: Definition[], e: CloudEventJson) => {
      const plan = dispatcher.plan(e, defs, false);
      return plan.ok ? plan.deliveries : [];
    };
    const sides: [string, () => Promise<Definition[]>, (defs: Definition[], e: CloudEventJson) => unknown[]][] = [];
    for (const [name, dir] of Object.entries(dirs)) {
      const r = new DefinitionRegistry([dir], { rescanMs: 3_600_000 });
      registries.push(r);
      await r.watch();
      const n = (await r.indexedDefinitions()).length;
      if (n !== (name === '1' ? 2 : 1000)) throw new Error(`${name}: ${n} definitions loaded`);
      sides.push([`${name}, now`, () => r.indexedDefinitions(), planned], [`${name}, every definition`, () => r.indexedDefinitions(), everyDefinition], [`${name}, before`, () => r.allDefinitions(), everyDefinition]);
    }
    // Warm-up: every side once.
    for (const [, read, routeIt] of sides) for (let i = 0; i < 50; i++) routeIt(await read(), event(i));
    for (let round_ = 0; round_ < ROUNDS; round_++) {
      const order = round_ % 2 ? [...sides].reverse() : sides;
      for (const [name, read, routeIt] of order) {
        const n = name.includes('before') ? Math.max(20, Math.round(EVENTS / 50)) : name.includes('every') ? Math.round(EVENTS / 5) : EVENTS;
        const t0 = process.cpuUsage();
        for (let i = 0; i < n; i++) {
          if (routeIt(await read(), event(i)).length !== 1) throw new Error(`${name}: not routed to the one definition`);
        }
        const u = process.cpuUsage(t0);
        (cpu[name] ??= []).push((u.user + u.system) / 1000 / n);
      }
    }
  } finally {
    for (const r of registries) r.close();
    for (const d of Object.values(dirs)) rmSync(d, { recursive: true, force: true });
  }
  console.log(`${ROUNDS} rounds, ${EVENTS} events per index side per round; load average ${loadavg().map((x) => x.toFixed(1)).join(' ')}`);
  console.log('| side | CPU µs per event, p50 of rounds | min–max | / `1, now` |');
  console.log('|---|---|---|---|');
  const base = quantile(cpu['1, now'], 0.5);
  for (const [name, xs] of Object.entries(cpu)) {
    const p50 = quantile(xs, 0.5);
    console.log(`| ${name} | ${round(p50 * 1000, 1)} | ${round(Math.min(...xs) * 1000, 1)}–${round(Math.max(...xs) * 1000, 1)} | ${round(p50 / base, 2)}× |`);
  }
}

void main().catch((err) => {
  console.error(err);
  process.exit(1);
});
