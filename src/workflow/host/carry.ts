/**
 * What a run hands to the next run of its chain when it continues as new (StartOptions.carried),
 * pure. The host's part is the same for both DSLs: the mailbox (kept events, consumed keys,
 * correlation values), the path so far, the deadline that spans the chain, the generation; each
 * front end adds its position (0.8: the next state and the compensation log; 1.0: the next
 * top-level task, `$context`, `$workflow.input` and its start time).
 *
 * Written as `{ host, front }`. Read also in the two shapes written before the run host (0.8:
 * flat, its deadline named `expiresAt`; 1.0: under `v1`, named `deadline`), so a chain started
 * by an older worker goes on.
 */
import type { Json } from '../../common/model';
import type { CloudEventJson } from '../../common/contracts';

export interface HostCarry {
  events: CloudEventJson[];
  consumed: string[];
  correlation: Record<string, Json>;
  /** The last steps entered (the `state` query's path). */
  entered: string[];
  /** Epoch ms when the run's deadline (0.8 workflowExecTimeout, 1.0 timeout.after) passes. */
  deadline?: number;
  generation: number;
}

export interface Carried {
  host: HostCarry;
  /** The front end's position (opaque to the host). */
  front: Record<string, Json>;
}

/** Steps of the path kept across continue-as-new. */
export const ENTERED_KEPT = 100;

const HOST_KEYS = new Set(['events', 'consumed', 'correlation', 'entered', 'expiresAt', 'deadline', 'generation']);

/** The carry a run was started with, whatever shape its previous run wrote; undefined for a first run. */
export function readCarried(carried: Json | undefined): Carried | undefined {
  if (!carried || typeof carried !== 'object' || Array.isArray(carried)) return undefined;
  const c = carried as Record<string, any>;
  if (c.host && c.front) return c as unknown as Carried;
  const legacy: Record<string, any> | undefined = c.v1 ?? (typeof c.state === 'string' ? c : undefined);
  if (!legacy) return undefined; // e.g. a foreach chunk's slice: not a continuation
  const deadline = legacy.deadline ?? legacy.expiresAt;
  return {
    host: {
      events: legacy.events ?? [],
      consumed: Array.isArray(legacy.consumed) ? legacy.consumed : [],
      correlation: legacy.correlation ?? {},
      entered: legacy.entered ?? [],
      ...(typeof deadline === 'number' ? { deadline } : {}),
      generation: typeof legacy.generation === 'number' ? legacy.generation : 0,
    },
    front: Object.fromEntries(Object.entries(legacy).filter(([k]) => !HOST_KEYS.has(k))),
  };
}
