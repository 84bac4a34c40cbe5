/**
 * Without a payload store, an activity's result over the payload limit fails the activity with
 * swflow's message (non-retryable `PayloadTooLarge`), instead of Temporal refusing the
 * completion: the run's step then fails naming itself, the call and the size. With a store the
 * SDK stores the result and nothing is checked. Every swflow worker (interpreter, adapters,
 * processes, the adapter SDK's) carries it.
 */
import { ApplicationFailure } from '@temporalio/common';
import type { Context } from '@temporalio/activity';
import type { ActivityInterceptorsFactory } from '@temporalio/worker';
import { PAYLOAD_TOO_LARGE, payloadTooLargeMessage } from '../common/payload-limit';
import { payloadSettings } from './config';

export const payloadLimitInterceptor: ActivityInterceptorsFactory = (ctx: Context) => ({
  inbound: {
    async execute(input, next) {
      const result = await next(input);
      const { store, limit } = payloadSettings();
      if (store || result === undefined) return result;
      const text = typeof result === 'string' && result.length * 3 <= limit ? undefined : JSON.stringify(result);
      const bytes = text === undefined ? 0 : Buffer.byteLength(text);
      if (bytes > limit) throw ApplicationFailure.nonRetryable(payloadTooLargeMessage(`the result of ${ctx.info.activityType}`, bytes, limit), PAYLOAD_TOO_LARGE);
      return result;
    },
  },
});
