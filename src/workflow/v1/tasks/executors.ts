/**
 * The 1.0 executors by task type, built once: each is `(task, at, input, ctx) → { output, then? }`
 * over the narrow {@link TaskContext} (../context.ts). The run (../run.ts) and the unit tests' fake
 * context run tasks through this one table.
 */
import type { Json } from '../../../common/model';
import type { Task, TaskType } from '../../../common/model-v1';
import type { TaskAt, TaskContext, TaskOutcome } from '../context';
import { runCall } from './call';
import { runDo } from './do';
import { runEmit } from './emit';
import { runFor } from './for';
import { runFork } from './fork';
import { runListen } from './listen';
import { runRaise } from './raise';
import { runRun } from './run';
import { runSet } from './set';
import { runSwitch } from './switch';
import { runTry } from './try';
import { runWait } from './wait';

export type Executor = (task: Task, at: TaskAt, input: Json, ctx: TaskContext) => Promise<TaskOutcome>;

export const EXECUTORS: Readonly<Record<TaskType, Executor>> = {
  call: runCall,
  do: runDo,
  emit: runEmit,
  for: runFor,
  fork: runFork,
  listen: runListen,
  raise: runRaise,
  run: runRun,
  set: runSet,
  switch: runSwitch,
  try: runTry,
  wait: runWait,
};
