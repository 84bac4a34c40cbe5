/**
 * State that belongs to one run, kept where it stays the run's own even in a module shared between
 * runs (a preloaded module is evaluated once per workflow thread, so a module variable would be
 * every run's). A workflow's globals are its own (the SDK swaps them per run in its reused V8
 * context), so what a run keeps for code below the host (its tracker, its trace, its metrics,
 * where a reset re-did its history) lives in a slot on `globalThis`. No imports: any module may use it.
 */
type Slots = Record<string, unknown>;

const KEY = '__swflowRun';

/** A named slot of the current run's state (outside the sandbox: the process's, as module state was). */
export function runSlot<T>(name: string): { get(): T | undefined; set(value: T | undefined): void } {
  const slots = (): Slots => {
    const g = globalThis as { [KEY]?: Slots };
    return (g[KEY] ??= {});
  };
  return {
    get: () => slots()[name] as T | undefined,
    set: (value) => {
      slots()[name] = value;
    },
  };
}
