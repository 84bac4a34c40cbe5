/**
 * Payloads as `temporal workflow show -o json` prints them (metadata and data in base64): what the
 * encryption and large-data tests search the CLI's output for.
 */

/** Every payload in the output: its encoding, and its data as text (latin1: one character per byte, so a search for plaintext finds it whatever the bytes around it). */
export function payloadsOf(value: unknown, out: { encoding: string; data: string }[] = []): { encoding: string; data: string }[] {
  if (Array.isArray(value)) for (const v of value) payloadsOf(v, out);
  else if (value && typeof value === 'object') {
    const o = value as { metadata?: { encoding?: string }; data?: string };
    if (typeof o.metadata?.encoding === 'string') out.push({ encoding: Buffer.from(o.metadata.encoding, 'base64').toString(), data: Buffer.from(o.data ?? '', 'base64').toString('latin1') });
    else for (const v of Object.values(value)) payloadsOf(v, out);
  }
  return out;
}
