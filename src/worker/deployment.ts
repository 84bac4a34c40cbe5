/**
 * How a worker process is rolled out and stopped: Temporal Worker Versioning (worker deployments)
 * and the shutdown grace time, from the command line or the environment (docs/upgrades.md).
 *
 *   --deployment-name / SWFLOW_DEPLOYMENT_NAME       the worker deployment (default "swflow" when a build id is given)
 *   --build-id / SWFLOW_BUILD_ID                     this build; set: the worker is versioned
 *   --versioning-behavior / SWFLOW_VERSIONING_BEHAVIOR  pinned (default) or auto-upgrade
 *   --shutdown-grace / SWFLOW_SHUTDOWN_GRACE          how long SIGTERM lets in-flight tasks finish (e.g. 30s)
 *
 * Pinned: a run stays on the build that started it until it ends, so a new build takes only new
 * runs. Auto-upgrade: runs move to the current build at their next workflow task; safe for the
 * interpreter because behaviour changes are gated by the run's recorded `features`
 * (src/common/features.ts), but it gives up the guarantee that a run never meets new code.
 */
import type { NativeConnection, WorkerOptions } from '@temporalio/worker';
import type { WorkerDeploymentOptions } from '@temporalio/worker';
import type { Duration } from '@temporalio/common';

export interface DeploymentCliOptions {
  deploymentName?: string;
  buildId?: string;
  versioningBehavior?: string;
  shutdownGrace?: string;
}

export const DEFAULT_DEPLOYMENT_NAME = 'swflow';

function pick(option: string | undefined, flag: string, variable: string, env: NodeJS.ProcessEnv): [string | undefined, string] {
  if (option !== undefined && option !== '') return [option, flag];
  const v = env[variable];
  return [v === '' ? undefined : v, variable];
}

/** The worker deployment version of these options, or undefined (an unversioned worker). */
export function workerDeployment(opts: DeploymentCliOptions, env: NodeJS.ProcessEnv = process.env): WorkerDeploymentOptions | undefined {
  const [buildId, buildWhere] = pick(opts.buildId, '--build-id', 'SWFLOW_BUILD_ID', env);
  const [name, nameWhere] = pick(opts.deploymentName, '--deployment-name', 'SWFLOW_DEPLOYMENT_NAME', env);
  const [behavior, behaviorWhere] = pick(opts.versioningBehavior, '--versioning-behavior', 'SWFLOW_VERSIONING_BEHAVIOR', env);
  if (buildId === undefined) {
    if (name !== undefined) throw new Error(`${nameWhere} is set but no build id: give --build-id or SWFLOW_BUILD_ID too`);
    if (behavior !== undefined) throw new Error(`${behaviorWhere} is set but no build id: give --build-id or SWFLOW_BUILD_ID too`);
    return undefined;
  }
  const id = /^[A-Za-z0-9._:+@-]{1,255}$/;
  if (!id.test(buildId)) throw new Error(`${buildWhere}: build id ${JSON.stringify(buildId)} must be 1-255 letters, digits or . _ : + @ -`);
  const deploymentName = name ?? DEFAULT_DEPLOYMENT_NAME;
  if (!id.test(deploymentName) || deploymentName.includes('.')) throw new Error(`${nameWhere}: deployment name ${JSON.stringify(deploymentName)} must be 1-255 letters, digits or _ : + @ - (no dot: it separates name and build id)`);
  const behaviors: Record<string, 'PINNED' | 'AUTO_UPGRADE'> = { pinned: 'PINNED', 'auto-upgrade': 'AUTO_UPGRADE' };
  const defaultVersioningBehavior = behaviors[(behavior ?? 'pinned').toLowerCase()];
  if (!defaultVersioningBehavior) throw new Error(`${behaviorWhere} must be pinned or auto-upgrade, not ${JSON.stringify(behavior)}`);
  return { version: { deploymentName, buildId }, useWorkerVersioning: true, defaultVersioningBehavior };
}

/** `--shutdown-grace` / SWFLOW_SHUTDOWN_GRACE as a duration string for WorkerOptions.shutdownGraceTime, or undefined (the SDK's 0). */
export function shutdownGrace(opts: DeploymentCliOptions, env: NodeJS.ProcessEnv = process.env): Duration | undefined {
  const [raw, where] = pick(opts.shutdownGrace, '--shutdown-grace', 'SWFLOW_SHUTDOWN_GRACE', env);
  if (raw === undefined) return undefined;
  if (!/^\d+(\.\d+)?\s*(ms|s|m|h)?$/.test(raw.trim())) throw new Error(`${where} must be a duration such as 30s, 2m or 1500ms, not ${JSON.stringify(raw)}`);
  return (/^\d+(\.\d+)?$/.test(raw.trim()) ? `${raw.trim()}ms` : raw.trim().replace(/\s+/g, '')) as Duration;
}

/** The WorkerOptions these command-line options set. */
export function servingWorkerOptions(opts: DeploymentCliOptions, versioned: boolean, env: NodeJS.ProcessEnv = process.env): Partial<WorkerOptions> {
  const grace = shutdownGrace(opts, env);
  const deployment = versioned ? workerDeployment(opts, env) : undefined;
  return { ...(grace ? { shutdownGraceTime: grace } : {}), ...(deployment ? { workerDeploymentOptions: deployment } : {}) };
}

/**
 * Makes `deployment` the current version of its worker deployment: new runs (and auto-upgrade
 * ones) go to it. The server learns a version from its workers' polls, so this retries until
 * the version is known (up to `timeoutMs`).
 */
export async function setCurrentVersion(
  connection: Pick<NativeConnection, 'workflowService'>,
  namespace: string,
  version: { deploymentName: string; buildId: string },
  opts: { timeoutMs?: number; identity?: string } = {},
): Promise<void> {
  const deadline = Date.now() + (opts.timeoutMs ?? 30_000);
  for (;;) {
    try {
      await connection.workflowService.setWorkerDeploymentCurrentVersion({
        namespace,
        deploymentName: version.deploymentName,
        buildId: version.buildId,
        identity: opts.identity ?? 'swflow',
      });
      return;
    } catch (err) {
      // NOT_FOUND (5) / FAILED_PRECONDITION (9): the server has not seen a poller of this version yet.
      const code = (err as { code?: number }).code;
      if ((code !== 5 && code !== 9) || Date.now() > deadline) {
        throw new Error(`could not make ${version.deploymentName}.${version.buildId} the current version: ${(err as Error).message}`);
      }
      await new Promise((r) => setTimeout(r, 500));
    }
  }
}
