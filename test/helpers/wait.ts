/**
 * Polls `probe` until it answers something other than undefined (a probe that throws, e.g. a
 * query before the run's first task, counts as "not yet"); fails naming `what` after `ms`.
 */
export async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, ms = 15_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const v = await probe().catch(() => undefined);
    if (v !== undefined) return v;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
