/**
 * The activity interceptor that makes a span per function call attempt (`call <function>`, a
 * client span), a child of Temporal's RunActivity span; registered after callInterceptor, so it
 * sees the whole FunctionCall. While it runs the adapters put its context on what they send
 * (./context.ts). Activities that are not function calls pass. None when tracing is off (no frame
 * on every call's path: bench/README.md, "The interpreter's own cost, like for like").
 */
import { Context } from '@temporalio/activity';
import type { ActivityInboundCallsInterceptor, ActivityInterceptorsFactory } from '@temporalio/worker';
import { isFunctionCall } from '../adapter-sdk/call';
import { inSpan } from './context';
import { tracing } from './index';

export const tracingCallInterceptor: ActivityInterceptorsFactory = () => (tracing() ? { inbound: tracedCall } : {});

const tracedCall: ActivityInboundCallsInterceptor = {
  async execute(input, next) {
    const call = input.args[0];
    if (!isFunctionCall(call)) return next(input);
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
};
