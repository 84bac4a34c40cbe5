/**
 * Serverless Workflow 1.0 errors are RFC 7807 problems (`type`, `status`, `title`, `detail`): a
 * 1.0 `try`/`catch` filters on them. An adapter serving 1.0 calls fails with {@link problemFailure};
 * the SDK keeps the problem's fields in the failure's `details[0]` (redacted), where the 1.0
 * executor reads them, beside the `code`/`message` a 0.8 `onErrors` matches.
 */
import { ApplicationFailure } from '@temporalio/common';

/** The spec's standard error types (1.0 "Errors"). */
export const ErrorTypes = {
  configuration: 'https://serverlessworkflow.io/spec/1.0.0/errors/configuration',
  validation: 'https://serverlessworkflow.io/spec/1.0.0/errors/validation',
  expression: 'https://serverlessworkflow.io/spec/1.0.0/errors/expression',
  authentication: 'https://serverlessworkflow.io/spec/1.0.0/errors/authentication',
  authorization: 'https://serverlessworkflow.io/spec/1.0.0/errors/authorization',
  timeout: 'https://serverlessworkflow.io/spec/1.0.0/errors/timeout',
  communication: 'https://serverlessworkflow.io/spec/1.0.0/errors/communication',
  runtime: 'https://serverlessworkflow.io/spec/1.0.0/errors/runtime',
} as const;

import { errorClass, SwflowError } from '../common/errors';
import { serviceErrorOfProblem, type Problem } from '../common/problem';

export type { Problem };

/** A definition problem (no URI, unknown secret, unsupported policy): retrying cannot help. */
export class ConfigurationError extends SwflowError {
  static {
    errorClass(this, 'ConfigurationError');
  }
}

/** The Temporal failure of a problem; its code (what 0.8's `errors[].code` matches) is the status. */
export function problemFailure(problem: Problem, nonRetryable = false): ApplicationFailure {
  return ApplicationFailure.create({
    type: problem.type,
    message: `${problem.title}: ${problem.detail ?? ''}`,
    details: [{ ...problem, ...serviceErrorOfProblem(problem) }],
    nonRetryable,
  });
}

/** The non-retryable failure of a definition problem. */
export function configurationFailure(message: string): ApplicationFailure {
  return problemFailure({ type: ErrorTypes.configuration, status: 400, title: 'Configuration Error', detail: message }, true);
}
