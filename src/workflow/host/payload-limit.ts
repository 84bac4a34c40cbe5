/**
 * A run on a worker without a payload store (ResolveResult.payloadLimit) checks what it hands to
 * Temporal: the inputs of its calls, activities and child runs go through {@link limitPayloads},
 * its output and what it carries to its next run through {@link checkPayload}. Over the limit,
 * the step fails with `PayloadTooLarge` (non-retryable) saying what and how large; the pipeline
 * names the state or task, as for any error of the step. Temporal would otherwise refuse the
 * command and terminate the run with a message about Temporal.
 */
import { ApplicationFailure } from '@temporalio/workflow';
import { jsonBytes, PAYLOAD_TOO_LARGE, payloadTooLargeMessage } from '../../common/payload-limit';
import { boundEffects, type Effects } from '../effects';

/** Throws PayloadTooLarge when `value` is over `limit` bytes as JSON. */
export function checkPayload(what: string, value: unknown, limit: number): void {
  const bytes = jsonBytes(value, limit);
  if (bytes > limit) throw ApplicationFailure.create({ message: payloadTooLargeMessage(what, bytes, limit), type: PAYLOAD_TOO_LARGE, nonRetryable: true });
}

/** A rejected promise instead of a throw: callers see the failure where they await the command. */
function checked<T>(what: string, value: unknown, limit: number, issue: () => Promise<T>): Promise<T> {
  try {
    checkPayload(what, value, limit);
  } catch (err) {
    return Promise.reject(err);
  }
  // The SDK's promise itself: no added microtask turn (effects.ts).
  return issue();
}

/** `effects` whose commands carrying data check it first; everything else is passed through unchanged. */
export function limitPayloads(effects: Effects, limit: number): Effects {
  return {
    ...boundEffects(effects),
    activity: (type, args, options) => checked(`the input of ${type}`, args, limit, () => effects.activity(type, args, options)),
    localCall: (type, args, options) => checked(`the input of ${type}`, args, limit, () => effects.localCall(type, args, options)),
    localActivity: (type, args, options) => checked(`the input of ${type}`, args, limit, () => effects.localActivity(type, args, options)),
    executeChild: (type, options) => checked(`the input of the child run ${type}`, options.args, limit, () => effects.executeChild(type, options)),
    startChild: (type, options) => checked(`the input of the child run ${type}`, options.args, limit, () => effects.startChild(type, options)),
  };
}
