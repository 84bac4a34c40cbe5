/**
 * Where a reset (a redrive, src/common/redrive.ts) re-did this run's history. Temporal gives the
 * workflow task a reset re-does a new randomness seed (the SDK applies it before the activation's
 * jobs, and again at the same point on every replay), so a seed that changes between activations
 * marks, deterministically, where the kept history ends. The interceptors (../interceptors.ts) call
 * {@link noteActivation} first thing in each activation; ./redrive.ts and the pinning read
 * {@link resetsSeen}.
 */
import type { coresdk } from '@temporalio/proto';
import { runSlot } from './run-local';

/** The seed as last seen, and how many resets this run went through (the run's own: ./run-local.ts). */
const seen = runSlot<{ seed?: string; resets: number }>('resets');
const state = (): { seed?: string; resets: number } => {
  let s = seen.get();
  if (!s) seen.set((s = { resets: 0 }));
  return s;
};

interface SeededActivator {
  randomnessSeed?: number[];
}

/** Called at the start of every activation: counts a reset when the randomness seed changed. */
export function noteActivation(activation: coresdk.workflow_activation.IWorkflowActivation): void {
  const activator = (globalThis as { __TEMPORAL_ACTIVATOR__?: SeededActivator }).__TEMPORAL_ACTIVATOR__;
  const now = activator?.randomnessSeed ? activator.randomnessSeed.join(',') : undefined;
  if (now === undefined) return;
  const s = state();
  if (s.seed === undefined) {
    // The first activation: the seed the run started with is its initialization's (a reset to the
    // first workflow task replaced it already).
    const init = activation.jobs?.find((j) => j.initializeWorkflow)?.initializeWorkflow?.randomnessSeed as { toBytes?: () => number[] } | undefined;
    s.seed = init?.toBytes ? init.toBytes().join(',') : now;
  }
  if (now !== s.seed) {
    s.resets++;
    s.seed = now;
  }
}

/** How many resets this run has been through so far (at this point of its history). */
export function resetsSeen(): number {
  return seen.get()?.resets ?? 0;
}

