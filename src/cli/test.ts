/**
 * `swflow test <files or folders...>`: runs workflow test cases (`*.case.yaml|json`, folders
 * recursively) on a real Temporal server with time skipping and mocked services; prints
 * `PASS name` / `FAIL name: why` per case and `N passed, N failed`. Exit 0 only when nothing failed.
 * `--shuffle` runs the cases in a random order and prints its seed; `--seed <n>` replays that order.
 */
import type { Command } from 'commander';
import { resolve } from 'node:path';

export function register(program: Command): void {
  program
    .command('test')
    .description('Run workflow test cases (*.case.yaml / *.case.json) with mocked services and time skipping')
    .argument('<paths...>', 'case files or folders (searched recursively)')
    .option('--timeout <seconds>', 'real-time limit per case, in seconds', '60')
    .option('--record-histories <dir>', 'save the history of each passing case to <dir>/<case>.json (replay fixtures)')
    .option('-v, --verbose', 'print each case\'s description and duration')
    .option('--shuffle', 'run the cases in a random order, printing its seed')
    .option('--seed <n>', 'run the cases in the random order of this seed (as printed by --shuffle)')
    .action(async (paths: string[], opts: TestCommandOptions) => {
      const code = await runTestCommand(paths, opts);
      process.exitCode = code;
      // The SDK's native runtime can keep the event loop alive after teardown.
      setImmediate(() => process.exit(code));
    });
}

export interface TestCommandOptions {
  timeout?: string;
  recordHistories?: string;
  verbose?: boolean;
  /** Run the cases in a random order (a random seed unless `seed` is given). */
  shuffle?: boolean;
  /** The seed of the order to run the cases in (implies `shuffle`). */
  seed?: string;
}

export async function runTestCommand(
  paths: string[],
  opts: TestCommandOptions,
  out: (line: string) => void = (l) => console.log(l),
): Promise<number> {
  const { runCases, collectCaseFiles } = await import('../testing/runner');
  const { parseSeed, randomSeed } = await import('../testing/order');
  const timeoutS = Number(opts.timeout ?? 60);
  if (!Number.isFinite(timeoutS) || timeoutS <= 0) throw new Error(`--timeout must be a positive number of seconds, got ${opts.timeout}`);
  const shuffleSeed = opts.seed !== undefined ? parseSeed(opts.seed) : opts.shuffle ? randomSeed() : undefined;
  const files = collectCaseFiles(paths);
  if (files.length === 0) {
    out(`no *.case.yaml / *.case.json files in ${paths.join(', ')}`);
    out('0 passed, 0 failed');
    return 1;
  }
  const recordDir = opts.recordHistories ?? (process.env.SWFLOW_RECORD_HISTORIES === '1' ? resolve(__dirname, '..', '..', 'test', 'fixtures', 'histories') : undefined);
  if (shuffleSeed !== undefined) out(`shuffled with seed ${shuffleSeed} (this order again: --seed ${shuffleSeed})`);
  const result = await runCases(files, {
    timeoutMs: timeoutS * 1000,
    shuffleSeed,
    recordHistoriesDir: recordDir,
    log: (m) => console.error(m),
    onResult: (r) => {
      const secs = opts.verbose ? ` (${(r.durationMs / 1000).toFixed(1)} s)` : '';
      if (r.passed) out(`PASS ${r.name}${secs}`);
      else out(`FAIL ${r.name}${secs}: ${r.problems.join('\n  ')}`);
    },
  });
  out(`${result.passed} passed, ${result.failed} failed`);
  return result.failed === 0 ? 0 : 1;
}
