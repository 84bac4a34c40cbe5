/**
 * An RFC 7807 problem as the Serverless Workflow 1.0 DSL defines an error (`type`, `status`,
 * `instance`, `title`, `detail`): what a 1.0 task raises and catches, and what an adapter reports
 * (the adapter SDK re-exports it). Sandbox-safe.
 */
export interface Problem {
  type: string;
  status: number;
  /** The JSON pointer of the task that raised it. */
  instance?: string;
  title?: string;
  detail?: string;
}

/**
 * A problem as a 0.8 definition sees it, beside the problem in a failure's `details[0]`: the
 * `code` its `errors[].code` matches is the status, the message the detail (else the title).
 * The other way, a 0.8-shaped failure as a 1.0 error, is `fromServiceError`
 * (src/workflow/v1/errors.ts).
 */
export function serviceErrorOfProblem(problem: Problem): { code: string; message: string | undefined } {
  return { code: String(problem.status), message: problem.detail ?? problem.title };
}
