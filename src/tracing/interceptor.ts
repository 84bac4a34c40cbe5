/**
 * The activity interceptor that makes a span per function call attempt (`call <function>`, a
 * client span), a child of Temporal's RunActivity span; registered after callInterceptor, so it
 * sees the whole FunctionCall. While it runs the adapters put its context on what they send
 * (./context.ts). Activities that are not function calls pass. A no-op when tracing is off.
 */
import { Context } from '@temporalio/activity';
import type { ActivityInterceptorsFactory } from '@temporalio/worker';
import { isFunctionCall } from '../adapter-sdk/call';
import { inSpan } from './context';
import { tracing } from './index';

export const tracingCallInterceptor: ActivityInterceptorsFactory = () => ({
  inbound: {
    async execute(input, next) {
      const call = input.args[0];
      if (!tracing() || !isFunctionCall(call)) return next(input);
      const attributes = {
        'swflow.definition.id': call.workflow.definitionId,
        'swflow.function.name': call.function.name,
        'swflow.function.type': call.function.type,
        'swflow.state': call.state,
        'swflow.action': call.action,
        'swflow.call.attempt': Context.current().info.attempt,
      };
      return inSpan(`call ${call.function.name}`, { kind: 'client', attributes }, () => next(input));
    },
  },
});
