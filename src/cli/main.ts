#!/usr/bin/env node
/**
 * The `swflow` command. Each subcommand lives in its own module under src/cli/ and exports
 * `register(program)`, so commands stay small and independent.
 */
import { Command } from 'commander';

const COMMANDS = ['start', 'worker', 'adapters', 'processes', 'gateway', 'event', 'suspend', 'schedules', 'validate', 'diagram', 'run', 'test'];

async function main(): Promise<void> {
  const program = new Command('swflow')
    .description('Run CNCF Serverless Workflow definitions durably on Temporal')
    .showHelpAfterError();
  for (const name of COMMANDS) {
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
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
