/**
 * The MCP tools and resources about definitions, none of which needs Temporal: validate (the
 * loader's findings, located, with their fixes), draw (Mermaid, as `swflow diagram`), list (the
 * `-d` folders, as `swflow ui` reads them); the definitions' documents and the specifications'
 * JSON schemas as resources.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { extname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { loadAnyDefinition, loadAnyDefinitionFile, formatFinding, type Finding } from '../dsl';
import type { Definition } from '../common/model';
import { isV1Definition } from '../common/model-v1';
import { mermaidOf } from '../cli/diagram';
import { PROJECT_ROOT } from '../platform/paths';
import type { McpContext } from './context';
import { answer, guarded, refusal } from './result';

/** The specifications' JSON schemas src/dsl validates with, by their resource path. */
const SCHEMA_DIRS = [
  { version: '1.0.3', dir: join(PROJECT_ROOT, 'src', 'dsl', 'v1', 'schema') },
  { version: '0.8', dir: join(PROJECT_ROOT, 'src', 'dsl', 'v08', 'schema') },
];

const schemaListing: Record<string, string[]> = {};

const DOCUMENT = z.string().describe('the definition document itself: YAML or JSON text');
const PATH = z.string().describe('a definition file (over HTTP: inside the server\'s --definitions folders)');

/** A finding as tools report it: `column` and `fix` spelled out. */
function finding(f: Finding) {
  return { severity: f.severity, message: f.message, line: f.line ?? null, column: f.col ?? null, pointer: f.pointer ?? null, fix: f.hint ?? null, file: f.file ?? null };
}

/** What one definition is, as lists show it. */
export function summaryOf(def: Definition, file?: string) {
  return isV1Definition(def)
    ? { id: def.id, version: def.version, name: def.name, dsl: def.dsl, file: file ?? null }
    : { id: def.id, version: def.version ?? null, name: def.name ?? def.id, dsl: def.specVersion, file: file ?? null };
}

/** Loads the document given as text or as a file (refusing files outside the definitions folders when the context says so). */
async function load(ctx: McpContext, args: { document?: string; path?: string }, strict = false) {
  if ((args.document === undefined) === (args.path === undefined)) throw new Error('give either `document` (the text) or `path` (a file)');
  if (args.document !== undefined) return loadAnyDefinition(args.document, { source: '<document>', strict });
  const file = resolve(args.path!);
  const inside = (place: string) => {
    const rel = relative(place, file);
    return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
  };
  if (!ctx.anyPath && !ctx.registry.places().some(inside)) {
    throw new Error(`${args.path}: over HTTP only files inside the --definitions folders can be read (${ctx.registry.places().join(', ')}); send the text as \`document\``);
  }
  return loadAnyDefinitionFile(file, { strict });
}

export function registerDefinitionTools(server: McpServer, ctx: McpContext): void {
  server.registerTool(
    'validate_definition',
    {
      title: 'Validate a workflow definition',
      description: 'Validates a Serverless Workflow definition (0.8 or 1.0, YAML or JSON) as `swflow validate` does: each finding with its line, column, JSON pointer, severity, message and fix.',
      inputSchema: { document: DOCUMENT.optional(), path: PATH.optional(), strict: z.boolean().optional().describe('warnings count as errors') },
      annotations: { readOnlyHint: true },
    },
    (args) =>
      guarded('validate_definition', async () => {
        const strict = await load(ctx, args, args.strict);
        const findings = strict.problems.map(finding);
        const valid = strict.definition !== undefined;
        const errors = findings.filter((f) => f.severity === 'error').length;
        const summary = valid ? `valid${findings.length ? ` (${findings.length} finding(s))` : ''}` : `not valid: ${errors} error(s)`;
        return answer([summary, ...strict.problems.map(formatFinding)].join('\n'), { valid, ...(strict.definition ? { definition: summaryOf(strict.definition) } : {}), findings });
      }),
  );

  server.registerTool(
    'draw_definition',
    {
      title: 'Draw a workflow definition',
      description: 'The Mermaid diagram of a definition (0.8: its states; 1.0: its task tree), given as text, a file or the id (`id` or `id@version`) of one the server serves.',
      inputSchema: { document: DOCUMENT.optional(), path: PATH.optional(), definitionId: z.string().optional().describe('`id` or `id@version` of a listed definition') },
      annotations: { readOnlyHint: true },
    },
    (args) =>
      guarded('draw_definition', async () => {
        let def: Definition | undefined;
        if (args.definitionId !== undefined) {
          if (args.document !== undefined || args.path !== undefined) throw new Error('give one of `document`, `path` or `definitionId`');
          def = (await ctx.registry.resolve(args.definitionId)).def;
        } else {
          const r = await load(ctx, args);
          if (!r.definition) return refusal(`the definition does not load:\n${r.problems.map(formatFinding).join('\n')}`, { findings: r.problems.map(finding) });
          def = r.definition;
        }
        const mermaid = mermaidOf(def);
        return answer(mermaid, { definition: summaryOf(def), mermaid });
      }),
  );

  server.registerTool(
    'list_definitions',
    {
      title: 'List workflow definitions',
      description: 'The definitions this server (and the workers started with the same --definitions) serves: id, version, name, DSL version and file; and the files that do not load, with why.',
      annotations: { readOnlyHint: true },
    },
    () =>
      guarded('list_definitions', async () => {
        const { entries, broken } = await ctx.registry.all();
        const definitions = entries.map((e) => summaryOf(e.def, e.source.startsWith('definition object') ? undefined : e.source));
        const lines = definitions.map((d) => `${d.id}${d.version ? `@${d.version}` : ''} (${d.dsl}) ${d.name}`);
        return answer([`${definitions.length} definition(s)${broken.length ? `, ${broken.length} file(s) that do not load` : ''}`, ...lines].join('\n'), { definitions, broken });
      }),
  );
}

export function registerDefinitionResources(server: McpServer, ctx: McpContext): void {
  server.registerResource(
    'definition',
    new ResourceTemplate('swflow://definitions/{id}/{version}', {
      list: async () => ({
        resources: (await ctx.registry.all()).entries.map((e) => ({
          uri: definitionUri(e.def),
          name: `${e.def.id}@${e.def.version ?? ''}`,
          title: e.def.name ?? e.def.id,
          mimeType: mimeOf(e.source),
        })),
      }),
    }),
    { description: 'A workflow definition the server serves, as its file holds it (id and version URI-encoded: a 1.0 id is namespace/name)', mimeType: 'application/yaml' },
    async (uri, vars) => {
      const id = decodeURIComponent(String(vars.id));
      const version = decodeURIComponent(String(vars.version));
      const entry = (await ctx.registry.all()).entries.find((e) => e.def.id === id && (e.def.version ?? '') === version);
      if (!entry) throw new Error(`no definition ${id} version ${version || '(none)'}: see list_definitions`);
      const file = entry.source.startsWith('definition object') ? undefined : entry.source;
      return { contents: [{ uri: uri.href, mimeType: file ? mimeOf(file) : 'application/json', text: file ? readFileSync(file, 'utf8') : JSON.stringify(entry.def, null, 2) }] };
    },
  );
  for (const { version, dir } of SCHEMA_DIRS) {
    // Listed once per process: an HTTP server builds a server per request.
    for (const file of (schemaListing[version] ??= schemaFiles(dir))) {
      const uri = `swflow://schemas/${version}/${file.split(sep).join('/')}`;
      server.registerResource(`schema ${version} ${file}`, uri, { title: `Serverless Workflow ${version} JSON schema: ${file}`, mimeType: mimeOf(file) }, async () => ({
        contents: [{ uri, mimeType: mimeOf(file), text: readFileSync(join(dir, file), 'utf8') }],
      }));
    }
  }
}

export function definitionUri(def: Definition): string {
  return `swflow://definitions/${encodeURIComponent(def.id)}/${encodeURIComponent(def.version ?? '')}`;
}

function mimeOf(file: string): string {
  return extname(file).toLowerCase() === '.json' ? 'application/json' : 'application/yaml';
}

function schemaFiles(dir: string, prefix = ''): string[] {
  const out: string[] = [];
  for (const e of readdirSync(join(dir, prefix), { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    const rel = prefix ? join(prefix, e.name) : e.name;
    if (e.isDirectory()) out.push(...schemaFiles(dir, rel));
    else if (/\.(json|ya?ml)$/i.test(e.name)) out.push(rel);
  }
  return out;
}
