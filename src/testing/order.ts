/**
 * The order `swflow test` runs its cases in: the files' sorted order, or a seeded shuffle
 * (`--shuffle`) that shows whether a case depends on the ones before it; its seed, printed,
 * replays the same order (`--seed`).
 */

/** A small seeded PRNG (mulberry32): the same seed gives the same sequence, floats in [0, 1). */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `items` shuffled (Fisher–Yates) by the PRNG seeded with `seed`; `items` is left as it is. */
export function shuffled<T>(items: readonly T[], seed: number): T[] {
  const out = [...items];
  const random = mulberry32(seed);
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

/** A seed for `--shuffle` (32 bits, printed so that `--seed` can replay the order). */
export function randomSeed(): number {
  return Math.floor(Math.random() * 2 ** 32);
}

/** `--seed`'s value: an integer 0..2^32-1. */
export function parseSeed(text: string): number {
  const seed = Number(text);
  if (!/^\d+$/.test(text.trim()) || !Number.isSafeInteger(seed) || seed >= 2 ** 32) {
    throw new Error(`--seed takes an integer from 0 to ${2 ** 32 - 1}; got ${JSON.stringify(text)}`);
  }
  return seed;
}
