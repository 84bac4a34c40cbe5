/**
 * The activity interceptor that measures function calls (registered after callInterceptor, so it
 * sees the whole FunctionCall): latency of every attempt, errors by code, retries (attempts after
 * the first). Activities that are not function calls pass unmeasured. None when metrics are off.
 */
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { ActivityInterceptorsFactory } from '@temporalio/worker';
import { isFunctionCall } from '../adapter-sdk/call';
import { metrics } from './index';
import { callStarted } from './in-flight';

export const metricsInterceptor: ActivityInterceptorsFactory = () => {
  const m = metrics();
  if (!m) return {};
  return {
    inbound: {
      async execute(input, next) {
        const call = input.args[0];
        if (!isFunctionCall(call)) return next(input);
        const labels = { definition: call.workflow.definitionId, function: call.function.name };
        const info = Context.current().info;
        if (info.attempt > 1) m.callRetries.inc(labels);
        const ended = callStarted(info.isLocal ? 'local' : 'activity');
        const started = process.hrtime.bigint();
        const seconds = () => Number(process.hrtime.bigint() - started) / 1e9;
        try {
          const out = await next(input);
          m.callDuration.observe({ ...labels, outcome: 'ok' }, seconds());
          return out;
        } catch (err) {
          m.callDuration.observe({ ...labels, outcome: 'error' }, seconds());
          m.callErrors.inc({ ...labels, code: errorCode(err) });
          throw err;
        } finally {
          ended();
        }
      },
    },
  };
};

/** The code a definition's `errors[].code` would match: the failure's type, else the error's code or name. */
function errorCode(err: unknown): string {
  if (err instanceof ApplicationFailure && err.type) return err.type;
  const e = err as { code?: unknown; name?: unknown };
  if (typeof e?.code === 'string' || typeof e?.code === 'number') return String(e.code);
  return typeof e?.name === 'string' ? e.name : 'Error';
}
