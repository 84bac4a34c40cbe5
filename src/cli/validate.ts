/**
 * `swflow validate <files...>`: load each definition (any dialect), print every problem as
 * `file:line:col: severity: message (hint)`, exit 1 if any error (with --strict: any problem).
 */
import type { Command } from 'commander';
import { formatFinding, loadAnyDefinitionFile, type AnyLoadResult } from '../dsl';
import type { Definition } from '../common/model';
import { isV1Definition } from '../common/model-v1';

/** The dialect to show: 0.8-family dialects, or the 1.0 document's `dsl`. */
const dialectOf = (d: Definition) => (isV1Definition(d) ? `dsl ${d.dsl}` : d.dialect);

export function register(program: Command): void {
  program
    .command('validate')
    .description('Check workflow definitions (1.0, 0.8, CWM 0.9, v0.1): syntax, schema, references, expressions')
    .argument('<files...>', 'definition files (JSON or YAML) or http(s) URLs')
    .option('--json', 'print the results as JSON')
    .option('--strict', 'treat warnings as errors')
    .option('-I, --include <dir>', 'more directories for relative references (repeatable)', (v: string, acc: string[]) => [...acc, v], [] as string[])
    .action(async (files: string[], opts: { json?: boolean; strict?: boolean; include: string[] }) => {
      const results: AnyLoadResult[] = [];
      for (const f of files) results.push(await loadAnyDefinitionFile(f, { strict: opts.strict, includeDirs: opts.include }));
      let failed = false;
      if (opts.json) {
        const out = results.map((r) => ({ source: r.source, valid: !!r.definition, id: r.definition?.id, dialect: r.definition && dialectOf(r.definition), problems: r.problems }));
        failed = results.some((r) => !r.definition);
        process.stdout.write(JSON.stringify(out, null, 2) + '\n');
      } else {
        for (const r of results) {
          for (const p of r.problems) console.log(formatFinding(p));
          const errors = r.problems.filter((p) => p.severity === 'error').length;
          const warnings = r.problems.length - errors;
          if (r.definition) console.log(`${r.source}: valid (${dialectOf(r.definition)}, id ${r.definition.id}${warnings ? `, ${warnings} warning${warnings === 1 ? '' : 's'}` : ''})`);
          else {
            failed = true;
            console.log(`${r.source}: invalid (${errors} error${errors === 1 ? '' : 's'}${warnings ? `, ${warnings} warning${warnings === 1 ? '' : 's'}` : ''})`);
          }
        }
      }
      if (failed) process.exitCode = 1;
    });
}
