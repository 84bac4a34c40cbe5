/**
 * The whole shared corpus (../shared/corpus), driven by MANIFEST.md's class column:
 * - workflow / subflow / valid: accepted (warnings allowed), except the files listed in
 *   corpus-expected.json, which must be rejected with the listed message (each with the
 *   reason: the file itself is broken, or references something the corpus does not have);
 * - invalid: rejected, with a message naming the real problem;
 * - everything else (defs, support, spec, schema, input, notes, payload, index) is not a
 *   workflow: it is only used as a referenced resource, or not at all.
 * Prints the counts and lists anything it cannot handle.
 */
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { formatFinding, loadDefinitionFile } from '../../src/dsl';
import { CORPUS, includeDirsFor, manifest } from './corpus-lib';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const EXPECTED: Record<string, { contains: string; reason: string }> = require('./corpus-expected.json');

/** sdk-go's `invalid/` files and the problem each must be rejected for. */
const INVALID: Record<string, string> = {
  'sdk-go/invalid/applicationrequest-issue44.json': "unknown property 'default'",
  'sdk-go/invalid/applicationrequest-issue74.json': "dataConditions[0] must have 'transition' or 'end'",
  'sdk-go/invalid/applicationrequest.auth.invalid.format.json': "'auth' must be a string or an array",
  'sdk-go/invalid/applicationrequest.authdupl.json': "duplicate auth name 'testAuth'",
};

test('corpus: every document is handled as MANIFEST.md classifies it', { timeout: 300_000 }, async () => {
  const counts = { accepted: 0, warned: 0, expectedRejections: 0, invalidRejected: 0, notWorkflows: 0 };
  const unhandled: string[] = [];
  const reasons = new Map<string, number>();
  for (const e of manifest()) {
    const file = path.join(CORPUS, e.file);
    if (!['workflow', 'subflow', 'valid', 'invalid'].includes(e.cls)) {
      counts.notWorkflows++;
      continue;
    }
    const r = await loadDefinitionFile(file, { includeDirs: includeDirsFor(e.file) });
    const errors = r.problems.filter((p) => p.severity === 'error');
    const all = errors.map((p) => formatFinding(p).replace(CORPUS + '/', '')).join('\n    ');
    if (e.cls === 'invalid') {
      if (r.definition) unhandled.push(`${e.file}: invalid, but accepted`);
      else if (!errors.some((p) => p.message.includes(INVALID[e.file] ?? '\u0000'))) unhandled.push(`${e.file}: rejected, but not for ${JSON.stringify(INVALID[e.file])}:\n    ${all}`);
      else counts.invalidRejected++;
      continue;
    }
    const expected = EXPECTED[e.file];
    if (r.definition) {
      if (expected) unhandled.push(`${e.file}: listed as an expected rejection (${expected.reason}) but accepted; update corpus-expected.json`);
      else if (r.problems.length) counts.warned++;
      else counts.accepted++;
      // Every problem is located.
      for (const p of r.problems) if (p.line === undefined) unhandled.push(`${e.file}: unlocated warning: ${formatFinding(p)}`);
      continue;
    }
    if (!expected) unhandled.push(`${e.file}: rejected:\n    ${all}`);
    else if (!errors.some((p) => p.message.includes(expected.contains))) unhandled.push(`${e.file}: rejected, but without ${JSON.stringify(expected.contains)}:\n    ${all}`);
    else {
      counts.expectedRejections++;
      reasons.set(expected.reason, (reasons.get(expected.reason) ?? 0) + 1);
      for (const p of errors) if (p.line === undefined && !/internal/.test(p.message)) unhandled.push(`${e.file}: unlocated error: ${formatFinding(p)}`);
    }
  }
  console.log(
    `corpus: ${counts.accepted} accepted clean, ${counts.warned} accepted with warnings, ` +
      `${counts.expectedRejections} rejected as expected (broken documents), ${counts.invalidRejected} 'invalid' rejected, ` +
      `${counts.notWorkflows} non-workflow files, ${unhandled.length} unhandled`,
  );
  for (const [reason, n] of [...reasons].sort((a, b) => b[1] - a[1])) console.log(`  expected rejection x${n}: ${reason}`);
  for (const u of unhandled) console.log(`  UNHANDLED ${u}`);
  assert.deepEqual(unhandled, []);
  assert.equal(counts.invalidRejected, Object.keys(INVALID).length);
});
