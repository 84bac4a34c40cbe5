/** `swflow diagram <file>`: print a Mermaid stateDiagram-v2 of a (valid) definition. */
import type { Command } from 'commander';
import { formatProblem, loadDefinitionFile } from '../dsl';
import { toMermaid } from '../dsl/diagram';

export function register(program: Command): void {
  program
    .command('diagram')
    .description('Print a Mermaid stateDiagram-v2 of a workflow definition')
    .argument('<file>', 'definition file (JSON or YAML)')
    .option('-I, --include <dir>', 'more directories for relative references (repeatable)', (v: string, acc: string[]) => [...acc, v], [] as string[])
    .action(async (file: string, opts: { include: string[] }) => {
      const r = await loadDefinitionFile(file, { includeDirs: opts.include });
      if (!r.definition) {
        for (const p of r.problems) console.error(formatProblem(p));
        process.exitCode = 1;
        return;
      }
      process.stdout.write(toMermaid(r.definition));
    });
}
