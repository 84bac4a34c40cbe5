/** Smoke run of the 0.8 spec examples that have an input file (mocks answer {} ; events not sent). */
import { readdirSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startTimeSkippingEnv } from '../helpers/temporal';
import { loadDefinitionFile } from '../../src/dsl';
import { harness } from './helpers';

const DIR = '/work/shared/corpus/spec-examples-0.8';
(async () => {
  const h = await harness(await startTimeSkippingEnv());
  const files = readdirSync(DIR).filter((f) => /\.sw\.(json|ya?ml)$/.test(f));
  const all: Record<string, any> = {};
  for (const f of files) {
    const r = await loadDefinitionFile(join(DIR, f));
    if (r.definition) all[r.definition.version ? `${r.definition.id}@${r.definition.version}` : r.definition.id] = r.definition, all[r.definition.id] = r.definition;
  }
  for (const f of files) {
    const input = join(DIR, f.replace(/\.sw\.(json|ya?ml)$/, '.input.json'));
    const r = await loadDefinitionFile(join(DIR, f));
    if (!r.definition) { console.log(`LOADFAIL ${f}`); continue; }
    const d = r.definition;
    for (const fn of d.functions) h.mocks[fn.name] = () => ({});
    const data = existsSync(input) ? JSON.parse(readFileSync(input, 'utf8')) : {};
    try {
      const handle = await h.start(d, data, { subflows: all });
      const res = await Promise.race([handle.result(), new Promise((r) => setTimeout(() => r('__TIMEOUT__'), 4000))]);
      if (res === '__TIMEOUT__') {
        const s: any = await handle.query('state');
        console.log(`WAIT  ${f}: in ${s.currentStates} awaiting ${s.awaitedEvents}`);
        await handle.terminate();
      } else console.log(`OK    ${f}: ${JSON.stringify(res).slice(0, 150)}`);
    } catch (e: any) {
      console.log(`FAIL  ${f}: ${e.cause?.message ?? e.message}`);
    }
  }
  await h.close();
  await h.env.teardown();
})();
