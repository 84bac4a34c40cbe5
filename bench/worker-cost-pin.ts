/**
 * The pinned floors' `pin` activity (bench/worker-cost-floor.ts, bench/worker-cost-floor-adapter.ts):
 * the ten-call document of `dir` (read and hashed on the first pin, then kept, as swflow's registry
 * caches it), with what swflow's pin returns beside it (source, search attributes, features), so
 * the recorded result is the same size as swflow's.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { SEARCH_ATTRIBUTES } from '../src/common/contracts';
import { INTERPRETER_FEATURES } from '../src/common/features';

const pinned = new Map<string, Record<string, unknown>>();

/** The pin of the ten-GET document, or of the ten-POST one (`-writes`) for a workflow type of POSTs. */
export function pin(dir: string, workflowType = ''): Record<string, unknown> {
  const file = /Posts/.test(workflowType) ? 'ten-calls-writes.sw.yaml' : 'ten-calls.sw.yaml';
  let done = pinned.get(file);
  if (done) return done;
  const source = join(dir, file);
  const definition = parseYaml(readFileSync(source, 'utf8'));
  done = {
    definition,
    hash: createHash('sha256').update(JSON.stringify(definition)).digest('hex'),
    source,
    searchAttributes: Object.keys(SEARCH_ATTRIBUTES),
    features: INTERPRETER_FEATURES,
  };
  pinned.set(file, done);
  return done;
}
