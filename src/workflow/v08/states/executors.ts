/**
 * The 0.8 executors by state type, built once: each is `(state, h, ctx) => Next | void` over
 * the narrow {@link StateContext} (./context.ts), typed for its own state type.
 */
import type { StateDef, StateType } from '../../../common/model';
import type { Executor } from './context';
import { runInject } from './inject';
import { runOperation } from './operation';
import { runSleep } from './sleep';
import { runSwitch } from './switch';
import { runEvent } from './event';
import { runCallback } from './callback';
import { runParallel } from './parallel';
import { runForEach } from './foreach';

export type Executors = { readonly [T in StateType]: Executor<Extract<StateDef, { type: T }>> };

export const EXECUTORS: Executors = {
  inject: runInject,
  operation: runOperation,
  sleep: runSleep,
  switch: runSwitch,
  event: runEvent,
  callback: runCallback,
  parallel: runParallel,
  foreach: runForEach,
};

/** The executor of `state`'s type (an error for a type the interpreter does not know). */
export function executorOf(state: StateDef): Executor {
  const exec = EXECUTORS[state.type] as Executor | undefined;
  if (!exec) throw new Error(`Unsupported state type "${state.type}"`);
  return exec;
}

