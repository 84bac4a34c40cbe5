#!/usr/bin/env node
/**
 * The `swflow` command. Each subcommand lives in its own module under src/cli/ and exports
 * `register(program)`, so commands stay small and independent.
 */
import { Command } from 'commander';
import { startTracingIf, tracing } from '../tracing';
import { installTemporalLogger, useLogFormat } from '../tracing/log';
import { metricsPort } from '../metrics';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../platform/paths';

/** The commands that run Temporal workers (and so Temporal's runtime and its logger): bin/heap.js has the one list. */
const { WORKER_COMMANDS } = require(join(PROJECT_ROOT, 'bin', 'heap.js')) as { WORKER_COMMANDS: readonly string[] };

const COMMANDS = ['start', 'worker', 'adapters', 'processes', 'gateway', 'event', 'suspend', 'schedules', 'payloads', 'redrive', 'validate', 'diagram', 'run', 'test', 'codec-server', 'ui', 'setup', 'cluster', 'mcp', 'bundle'];
/** Commands registered by a module of another name. */
const MODULE_OF: Record<string, string> = { resume: 'suspend' };

/**
 * The modules to load: only the named command's when there is one (`swflow validate` need not
 * load the workers, Temporal's SDK and the adapters: seconds and ~70 MB), else all (help, typos).
 */
function modulesFor(argv: string[]): string[] {
  const name = argv[2];
  const mod = name === undefined ? undefined : (MODULE_OF[name] ?? name);
  return mod !== undefined && COMMANDS.includes(mod) ? [mod] : COMMANDS;
}

async function main(): Promise<void> {
  const program = new Command('swflow')
    .description('Run CNCF Serverless Workflow definitions durably on Temporal')
    .showHelpAfterError()
    .option('--log-format <format>', 'text (default) or json: one JSON line per event, with trace and span ids (default $SWFLOW_LOG_FORMAT)');
  // Every command: logs in the chosen format, and OpenTelemetry tracing when the OTEL_* variables
  // ask for it (service `swflow-<command>`; src/tracing), before it connects anywhere.
  program.hook('preAction', (_program, command) => {
    useLogFormat(program.opts().logFormat ?? process.env.SWFLOW_LOG_FORMAT, `swflow-${command.name()}`);
    // Temporal's runtime logs as JSON too in the commands that run workers (with metrics on, src/metrics installs it with that logger).
    if (WORKER_COMMANDS.includes(command.name()) && metricsPort(command.opts().metricsPort) === undefined) installTemporalLogger();
    startTracingIf(`swflow-${command.name()}`);
  });
  for (const name of modulesFor(process.argv)) {
    let mod: { register?: (p: Command) => void };
    try {
      mod = require(`./${name}`);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'MODULE_NOT_FOUND' && String((err as Error).message).includes(`./${name}`)) continue;
      throw err;
    }
    mod.register?.(program);
  }
  await program.parseAsync(process.argv);
  // The spans still batched go out before the process exits.
  await tracing()?.shutdown();
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
