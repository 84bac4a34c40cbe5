/**
 * Redaction at the source: the one place where secret values are kept out of what an activity
 * hands back to Temporal (and so out of history and `temporal workflow describe`).
 *
 * Every value a call resolves from `$SECRETS`, and every auth credential it uses (passwords,
 * tokens, client secrets, the tokens it obtained), is registered with the call's Redactor; the
 * activity wrapper (activities.ts) passes the result, the thrown failure (message, details,
 * stack, causes) and heartbeat details through it. A service that echoes a secret, a request
 * URL that carries one in its query or path, a jq-built value: all leave the worker redacted.
 *
 * Besides the value itself, the forms it takes on its way to a service are registered too: URL
 * and form encoding, JSON string escaping, base64 (Basic auth).
 */

/** What a secret is replaced with. */
export const REDACTED = '[redacted]';

/**
 * Values shorter than this are not redacted: replacing every "1" or "yes" in an answer would
 * corrupt it, and such a value is no secret.
 */
export const MIN_SECRET_LENGTH = 4;

export class Redactor {
  private readonly secrets = new Set<string>();
  private pattern: RegExp | undefined;

  /** Registers values as secret: strings (and the string leaves of objects and arrays). */
  add(...values: unknown[]): void {
    for (const v of values) this.collect(v);
  }

  /** Whether anything is registered. */
  get empty(): boolean {
    return this.secrets.size === 0;
  }

  private collect(v: unknown): void {
    if (typeof v === 'string') {
      for (const form of encodings(v)) {
        if (form.length >= MIN_SECRET_LENGTH && !this.secrets.has(form)) {
          this.secrets.add(form);
          this.pattern = undefined;
        }
      }
    } else if (typeof v === 'number' && String(v).length >= MIN_SECRET_LENGTH) this.collect(String(v));
    else if (Array.isArray(v)) v.forEach((x) => this.collect(x));
    else if (v && typeof v === 'object') Object.values(v).forEach((x) => this.collect(x));
  }

  /** The text with every registered value replaced by {@link REDACTED}. */
  text(s: string): string {
    if (this.secrets.size === 0 || !s) return s;
    // Longest first, so a value that contains another is replaced whole.
    this.pattern ??= new RegExp([...this.secrets].sort((a, b) => b.length - a.length).map(escapeRegExp).join('|'), 'g');
    return s.replace(this.pattern, REDACTED);
  }

  /** A copy of a JSON-like value with every string (keys included) redacted. */
  value<T>(v: T): T {
    if (this.secrets.size === 0) return v;
    return this.walk(v) as T;
  }

  private walk(v: unknown): unknown {
    if (typeof v === 'string') return this.text(v);
    if (typeof v === 'number' && this.secrets.has(String(v))) return REDACTED;
    if (Array.isArray(v)) return v.map((x) => this.walk(x));
    if (v && typeof v === 'object' && (Object.getPrototypeOf(v) === Object.prototype || Object.getPrototypeOf(v) === null)) {
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v)) out[this.text(k)] = this.walk(x);
      return out;
    }
    return v;
  }
}

/** The forms a secret takes on its way into a request or a message. */
function encodings(s: string): string[] {
  const forms = new Set([s]);
  forms.add(encodeURIComponent(s));
  forms.add(new URLSearchParams({ v: s }).toString().slice(2));
  forms.add(JSON.stringify(s).slice(1, -1));
  forms.add(encodeURI(s));
  if (s.length >= MIN_SECRET_LENGTH) forms.add(Buffer.from(s).toString('base64'));
  return [...forms];
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
