/**
 * `fork`: the branches run concurrently, each on the task's input. Without `compete` the output
 * is the array of the branches' outputs in declaration order, and a failing branch cancels the
 * others and fails the fork. With `compete` the first branch to complete wins: its output is the
 * fork's, the others are cancelled; the fork fails only when every branch fails (with the first
 * error).
 */
import { isCancellation } from '@temporalio/workflow';
import { entryOf, type Task } from '../../../common/model-v1';
import type { Json } from '../../../common/model';
import type { TaskAt, TaskContext, TaskOutcome } from '../context';

export async function runFork(task: Task, at: TaskAt, input: Json, ctx: TaskContext): Promise<TaskOutcome> {
  const branches = task.fork!.branches.map((item, i) => {
    const [name, t] = entryOf(item);
    return () => ctx.runTask(name, t, `${at.reference}/fork/branches/${i}/${name}`, input, at.locals);
  });
  const scope = ctx.effects.scope();
  if (!task.fork!.compete) {
    try {
      const results = await scope.run(() => Promise.all(branches.map((b) => b())));
      return { output: results.map((r) => r.output), ...(results.some((r) => r.then === 'end') ? { then: 'end' } : {}) };
    } catch (err) {
      scope.cancel();
      throw err;
    }
  }
  const winner = await scope.run(
    () =>
      new Promise<{ output: Json; then: string }>((resolve, reject) => {
        let failed = 0;
        let first: unknown;
        for (const b of branches) {
          b().then(resolve, (err) => {
            if (isCancellation(err)) return;
            first ??= err;
            if (++failed === branches.length) reject(first);
          });
        }
      }),
  );
  scope.cancel();
  return { output: winner.output, ...(winner.then === 'end' ? { then: 'end' } : {}) };
}
