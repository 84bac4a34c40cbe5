/**
 * Where a secret could leak to from a run: its full history (every payload and failure decoded
 * to text, as `temporal workflow show --output json` would show it after decoding) and
 * `temporal workflow describe` (pending activities with their last failure, the result...).
 */
import assert from 'node:assert/strict';
import type { Client } from '@temporalio/client';
import { historyText } from '../../src/testing/history';

/** `describe`'s raw answer as text, with payload bytes decoded. */
export async function describeText(client: Client, workflowId: string): Promise<string> {
  const d = await client.workflow.getHandle(workflowId).describe();
  return JSON.stringify(d.raw, (_k, v) => {
    if (v instanceof Uint8Array || (v && v.type === 'Buffer' && Array.isArray(v.data))) return Buffer.from(v instanceof Uint8Array ? v : v.data).toString('utf8');
    if (typeof v === 'bigint') return String(v);
    if (v && typeof v === 'object' && typeof v.toNumber === 'function' && 'low' in v) return v.toString();
    return v;
  });
}

/** The forms a secret could take in text: itself, URL- and form-encoded, base64. */
export function secretForms(secret: string): string[] {
  return [...new Set([secret, encodeURIComponent(secret), new URLSearchParams({ v: secret }).toString().slice(2), Buffer.from(secret).toString('base64')])];
}

/**
 * Asserts that no secret appears in the run's history or describe output (also texts captured
 * earlier, e.g. a describe taken while an activity was retrying), and that something was
 * redacted where the secret would have been (so the check is not vacuous).
 */
export async function assertNoSecrets(client: Client, workflowId: string, secrets: string[], extra: string[] = [], expectRedacted = true): Promise<string> {
  const history = historyText(await client.workflow.getHandle(workflowId).fetchHistory());
  const texts = { history, describe: await describeText(client, workflowId), ...Object.fromEntries(extra.map((t, i) => [`capture ${i + 1}`, t])) };
  for (const [where, text] of Object.entries(texts)) {
    for (const s of secrets) for (const form of secretForms(s)) assert.ok(!text.includes(form), `the secret ${JSON.stringify(s)} (as ${JSON.stringify(form)}) appears in the ${where}: …${text.slice(Math.max(0, text.indexOf(form) - 200), text.indexOf(form) + 100)}…`);
  }
  if (expectRedacted) assert.ok(history.includes('[redacted]'), 'something was redacted in the history');
  return history;
}
