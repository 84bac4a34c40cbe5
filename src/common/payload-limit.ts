/**
 * How large a value may be when it goes to Temporal without a payload store (sandbox-safe, shared
 * by the interpreter and the Node side). Temporal refuses a payload over its blob limit (2 MiB by
 * default) and terminates the run with a message about Temporal; swflow checks first and fails
 * the step with a message about the definition: what, where, how large, and what to configure.
 */
export const PAYLOAD_TOO_LARGE = 'PayloadTooLarge';

/**
 * The size of a value as JSON, in UTF-8 bytes (what the default payload converter sends, near
 * enough); exact only where it decides against `limit`: each UTF-16 unit is 1 to 3 bytes, so a
 * text longer than the limit is over it, and one under a third of it is not.
 */
export function jsonBytes(value: unknown, limit = Infinity): number {
  if (value === undefined) return 0;
  const text = JSON.stringify(value) ?? '';
  if (text.length > limit || text.length * 3 <= limit) return text.length;
  let bytes = text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0x80) bytes += c >= 0x800 && (c < 0xd800 || c > 0xdfff) ? 2 : 1;
  }
  return bytes;
}

/** `3.1 MB`, `512 KB`, `900 B` (decimal units, as Temporal's messages). */
export function formatBytes(n: number): string {
  if (n >= 1e6) return `${(n / 1e6).toFixed(1)} MB`;
  if (n >= 1e3) return `${(n / 1e3).toFixed(1)} KB`;
  return `${n} B`;
}

/** The message of a value over the limit: `what` says which value (and where, if the caller knows). */
export function payloadTooLargeMessage(what: string, bytes: number, limit: number): string {
  return `${what} is ${formatBytes(bytes)}, over the ${formatBytes(limit)} one Temporal payload may hold without a payload store: configure one (SWFLOW_PAYLOAD_STORE, docs/large-data.md) or make the value smaller`;
}
