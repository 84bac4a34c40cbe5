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
