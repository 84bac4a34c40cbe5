/** `swflow diagram <file>`: print a Mermaid diagram of a (valid) definition: a stateDiagram-v2 (0.8) or a flowchart of the task tree (1.0). */
import type { Command } from 'commander';
import { formatFinding, loadAnyDefinitionFile } from '../dsl';
import { toMermaid } from '../dsl/v08/diagram';
import { toMermaidV1 } from '../dsl/v1/diagram';
import { isV1Definition } from '../common/model-v1';
import type { Definition } from '../common/model';

/** The Mermaid text of a loaded definition (also what the MCP server's `draw_definition` answers). */
export function mermaidOf(def: Definition): string {
  return isV1Definition(def) ? toMermaidV1(def) : toMermaid(def);
}

export function register(program: Command): void {
  program
    .command('diagram')
    .description('Print a Mermaid diagram of a workflow definition (0.8: states, 1.0: the task tree)')
    .argument('<file>', 'definition file (JSON or YAML)')
    .option('-I, --include <dir>', 'more directories for relative references (repeatable)', (v: string, acc: string[]) => [...acc, v], [] as string[])
    .action(async (file: string, opts: { include: string[] }) => {
      const r = await loadAnyDefinitionFile(file, { includeDirs: opts.include });
      if (!r.definition) {
        for (const p of r.problems) console.error(formatFinding(p));
        process.exitCode = 1;
        return;
      }
      process.stdout.write(mermaidOf(r.definition));
    });
}
