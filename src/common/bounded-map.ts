/**
 * A Map with a size bound: least recently used entries go first. For the per-process caches
 * of workers and the gateway (tokens, fetched documents, compiled schemas), so a long-running
 * process never grows without bound whatever its inputs. Sandbox-safe (no Node modules).
 */
export class BoundedMap<K, V> {
  private readonly map = new Map<K, V>();

  /** `max` ≥ 1 entries are kept; `onEvict` hears every entry pushed out by the bound (not `delete`). */
  constructor(
    readonly max: number,
    private readonly onEvict?: (key: K, value: V) => void,
  ) {
    if (!Number.isInteger(max) || max < 1) throw new RangeError(`a bounded cache needs a whole number of entries ≥ 1 (got ${max})`);
  }

  /** The value, which becomes the most recently used. */
  get(key: K): V | undefined {
    if (!this.map.has(key)) return undefined;
    const value = this.map.get(key) as V;
    this.map.delete(key);
    this.map.set(key, value);
    return value;
  }

  has(key: K): boolean {
    return this.map.has(key);
  }

  set(key: K, value: V): this {
    this.map.delete(key);
    this.map.set(key, value);
    while (this.map.size > this.max) {
      const [oldest, old] = this.map.entries().next().value as [K, V];
      this.map.delete(oldest);
      this.onEvict?.(oldest, old);
    }
    return this;
  }

  delete(key: K): boolean {
    return this.map.delete(key);
  }

  clear(): void {
    this.map.clear();
  }

  get size(): number {
    return this.map.size;
  }

  keys(): IterableIterator<K> {
    return this.map.keys();
  }
}
