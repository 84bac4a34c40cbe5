/**
 * Workflow interceptors of the interpreter (registered by the worker's bundle,
 * `workflowInterceptorModules`): before every command that makes the run wait (an activity,
 * a local activity, a timer, a child workflow, continue-as-new), the search attributes that
 * changed are written, as one event (see Tracker in ui.ts).
 */
import type { WorkflowInterceptorsFactory } from '@temporalio/workflow';
import { beforeBlocking } from './ui';

export const interceptors: WorkflowInterceptorsFactory = () => ({
  outbound: [
    {
      scheduleActivity(input, next) {
        beforeBlocking();
        return next(input);
      },
      scheduleLocalActivity(input, next) {
        beforeBlocking();
        return next(input);
      },
      startTimer(input, next) {
        beforeBlocking();
        return next(input);
      },
      startChildWorkflowExecution(input, next) {
        beforeBlocking();
        return next(input);
      },
      continueAsNew(input, next) {
        beforeBlocking();
        return next(input);
      },
    },
  ],
});
