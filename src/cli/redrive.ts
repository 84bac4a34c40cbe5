/**
 * `swflow redrive`: restart a failed run at the state or task that failed, keeping what succeeded
 * (src/operations/redrive.ts), one run or every run a visibility query finds; optionally onto a
 * fixed version of its definition.
 *
 *   swflow redrive order-42
 *   swflow redrive order-42 --definition-version 2 -d ./workflows
 *   swflow redrive --query 'SwDefinitionId = "order" AND ExecutionStatus = "Failed"' --dry-run
 *   swflow redrive --query '…' --rate 20 --json
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import { Client, Connection } from '@temporalio/client';
import { connectionOptions, targetFromEnv } from '../client/connection';
import { dataConverterOptions } from '../codec';
import { DefinitionRegistry } from '../definitions/registry';
import { loadAnyDefinitionFile } from '../dsl';
import { PROJECT_ROOT } from '../platform/paths';
import type { Definition } from '../common/model';
import { redrive, redriveMany, type BulkOutcome, type RedriveResult } from '../operations/redrive';

interface RedriveCliOptions {
  runId?: string;
  query?: string;
  dryRun?: boolean;
  rate: string;
  limit?: string;
  reapplySignals: boolean;
  definitionVersion?: string;
  definition?: string;
  definitions: string[];
  json?: boolean;
}

function describe(r: RedriveResult, dryRun: boolean): string {
  const onto = r.definitionVersion ? ` onto version ${r.definitionVersion}` : '';
  const head = dryRun ? `would redrive ${r.workflowId} (run ${r.runId})` : `redrove ${r.workflowId}: new run ${r.newRunId}`;
  return `${head}${onto} from the step "${r.step}" (reset to workflow task event ${r.resetEventId}; ${r.reused} call${r.reused === 1 ? '' : 's'} after it answered from the old run, not made again)\n  it failed: ${r.failure.split('\n')[0]}`;
}

async function definitionFile(path: string): Promise<Definition> {
  const loaded = await loadAnyDefinitionFile(path);
  if (!loaded.definition) throw new Error(`${path} is not a valid definition:\n${loaded.problems.map((p) => `  ${p.message}`).join('\n')}`);
  return loaded.definition;
}

export function register(program: Command): void {
  program
    .command('redrive [workflowId]')
    .description('Restart a failed run at the state or task that failed, keeping what succeeded before it (one run, or --query for many)')
    .option('--run-id <runId>', 'the run to redrive (default: the latest; only the latest run of a workflow id can be redriven)')
    .option('--query <query>', 'redrive every run this visibility query finds, e.g. \'SwDefinitionId = "order" AND ExecutionStatus = "Failed"\'')
    .option('--dry-run', 'say what would be redriven and where, change nothing')
    .option('--rate <n>', 'with --query: redrives per second at most', '10')
    .option('--limit <n>', 'with --query: at most this many runs')
    .option('--no-reapply-signals', 'do not apply again the events (signals) the old run received after the reset point: they are dropped')
    .option('--definition-version <version>', 'carry the run over to this version of its definition (from --definitions): allowed when the steps it completed are unchanged')
    .option('--definition <file>', 'carry the run over to this definition document')
    .option('-d, --definitions <paths...>', 'the definition folders the workers serve (for --definition-version)', [join(PROJECT_ROOT, 'examples')])
    .option('--json', 'print the result as JSON')
    .action(async (workflowId: string | undefined, opts: RedriveCliOptions) => {
      if (!workflowId === !opts.query) throw new Error('name one run (swflow redrive <workflowId>) or give --query, not both');
      const target = targetFromEnv() ?? { address: '127.0.0.1:7233', namespace: process.env.TEMPORAL_NAMESPACE || 'default' };
      const connection = await Connection.connect(connectionOptions(target));
      try {
        const client = new Client({ connection, namespace: target.namespace, ...dataConverterOptions() });
        const common = {
          dryRun: !!opts.dryRun,
          reapplySignals: opts.reapplySignals,
          ...(opts.definitionVersion ? { definitionVersion: opts.definitionVersion, registry: new DefinitionRegistry(opts.definitions) } : {}),
          ...(opts.definition ? { definition: await definitionFile(opts.definition) } : {}),
          identity: `swflow redrive (${process.env.USER ?? 'operator'})`,
        };
        if (workflowId) {
          const r = await redrive(client, { ...common, workflowId, runId: opts.runId });
          console.log(opts.json ? JSON.stringify(r, null, 2) : describe(r, !!opts.dryRun));
          return;
        }
        const report = await redriveMany(client, {
          ...common,
          query: opts.query!,
          ratePerSecond: Number(opts.rate),
          ...(opts.limit ? { limit: Number(opts.limit) } : {}),
          onOutcome: opts.json ? undefined : (o: BulkOutcome) => console.log('result' in o ? describe(o.result, !!opts.dryRun) : `${o.outcome}: ${o.workflowId} (run ${o.runId}): ${o.reason}`),
        });
        if (opts.json) console.log(JSON.stringify(report, null, 2));
        else console.log(`${report.matched} run${report.matched === 1 ? '' : 's'} matched in ${(report.ms / 1000).toFixed(1)} s: ${Object.entries(report.counts).filter(([, n]) => n).map(([k, n]) => `${n} ${k}`).join(', ') || 'nothing done'}`);
        if (report.counts.error || report.counts.refused) process.exitCode = 1;
      } finally {
        await connection.close();
      }
    });
}
