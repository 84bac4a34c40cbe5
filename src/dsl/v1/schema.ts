/**
 * Validation of 1.0.x documents against the specification's own 1.0.3 JSON schema (Draft
 * 2020-12, copied verbatim to ../schema/1.0/workflow.yaml), with ajv — plus the changes the
 * specification made after 1.0.3 that documents may already use (see {@link patchAfter103}).
 *
 * ajv's raw errors for a task are noise: a task is a `oneOf` of twelve task types, a call a
 * `oneOf` of seven call kinds. So when the whole document does not validate, each task is
 * checked on its own against the schema of ITS type (chosen by its type key, and for calls by
 * `call`), in a "shallow" copy of the schema whose task lists do not descend (every task is
 * checked at its own place), and of the remaining errors the deepest are shown.
 */
import Ajv2020, { type ErrorObject, type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { joinPointer } from '../source';
import { entryOf, taskTypeOf, TASK_TYPES, type Task } from '../../common/model-v1';
import { isObj, type Obj } from '../v08/walk';

export interface SchemaIssue {
  pointer: string;
  message: string;
  key?: boolean;
  hint?: string;
}

const SCHEMA_FILE = join(__dirname, 'schema', 'workflow.yaml');
const FULL_ID = 'https://serverlessworkflow.io/schemas/1.0.3/workflow.yaml';
const SHALLOW_ID = 'https://swflow.local/schemas/1.0.3/shallow.yaml';

/**
 * What changed on the specification's main branch after 1.0.3 (shared SOURCE.md) and is
 * accepted: `catch.then`; `for.in` as an inline array; `schedule.on.read`; `emit.event.with`
 * without `source` (the runtime generates it, as it does `id`); a `certificate` authentication
 * policy (see patchAfter103). (`run.workflow` requiring
 * `namespace` and the new standard error URIs need no schema change.)
 */
function patchAfter103(schema: Obj): void {
  const defs = schema.$defs as Obj;
  const tryProps = ((defs.tryTask as Obj).allOf as Obj[])[1].properties as Obj;
  ((tryProps.catch as Obj).properties as Obj).then = { $ref: '#/$defs/flowDirective', title: 'CatchThen' };
  const forProps = ((defs.forTask as Obj).allOf as Obj[])[1].properties as Obj;
  const forIn = ((forProps.for as Obj).properties as Obj).in as Obj;
  delete forIn.type;
  forIn.oneOf = [{ type: 'string' }, { type: 'array' }];
  const emitWith = (((((defs.emitTask as Obj).allOf as Obj[])[1].properties as Obj).emit as Obj).properties as Obj).event as Obj;
  ((emitWith.properties as Obj).with as Obj).required = ['type'];
  const strategy = structuredClone(defs.eventConsumptionStrategy as Obj);
  strategy.properties = { read: { type: 'string', enum: ['data', 'envelope', 'raw'] } };
  defs.scheduleOnStrategy = strategy;
  ((schema.properties as Obj).schedule as Obj).properties = { ...(((schema.properties as Obj).schedule as Obj).properties as Obj), on: { $ref: '#/$defs/scheduleOnStrategy' } };
  // The reference names a `certificate` policy but defines no shape for it (and the schema has
  // none): swflow's is a client TLS certificate, inline (PEM texts or files) or from a secret.
  ((defs.authenticationPolicy as Obj).oneOf as Obj[]).push({
    title: 'CertificateAuthenticationPolicy',
    description: 'Use a client TLS certificate (swflow: the reference leaves its shape undefined).',
    properties: {
      certificate: {
        type: 'object',
        unevaluatedProperties: false,
        oneOf: [
          {
            title: 'CertificateAuthenticationProperties',
            properties: { certificate: { type: 'string' }, key: { type: 'string' }, ca: { type: 'string' }, passphrase: { type: 'string' } },
            required: ['certificate', 'key'],
          },
          { $ref: '#/$defs/secretBasedAuthenticationPolicy' },
        ],
      },
    },
    required: ['certificate'],
  });
}

/** The same schema whose task lists accept any single-key object (tasks are checked one by one). */
function shallow(schema: Obj): Obj {
  const copy = structuredClone(schema);
  copy.$id = SHALLOW_ID;
  (copy.$defs as Obj).taskList = { type: 'array', items: { type: 'object', minProperties: 1, maxProperties: 1 } };
  const use = (copy.properties as Obj).use as Obj;
  ((use.properties as Obj).functions as Obj).additionalProperties = { type: 'object' };
  return copy;
}

class V1Schemas {
  private readonly ajv = new Ajv2020({ allErrors: true, strict: false });
  private readonly cache = new Map<string, ValidateFunction>();
  readonly full: ValidateFunction;
  readonly callVariants: Record<string, number> = {};

  constructor() {
    addFormats(this.ajv);
    const schema = parseYaml(readFileSync(SCHEMA_FILE, 'utf8')) as Obj;
    patchAfter103(schema);
    this.ajv.addSchema(schema);
    this.ajv.addSchema(shallow(schema));
    this.full = this.ajv.getSchema(FULL_ID)!;
    ((schema.$defs as Obj).callTask as Obj).oneOf = (((schema.$defs as Obj).callTask as Obj).oneOf as Obj[]).map((variant, i) => {
      const call = ((((variant.allOf as Obj[])?.[1]?.properties as Obj)?.call as Obj)?.const as string) ?? '*';
      this.callVariants[call] = i;
      return variant;
    });
  }

  /** A validator for `#<pointer>` of the shallow schema. */
  at(pointer: string): ValidateFunction {
    let v = this.cache.get(pointer);
    if (!v) {
      v = this.ajv.compile({ $ref: `${SHALLOW_ID}#${pointer}` });
      this.cache.set(pointer, v);
    }
    return v;
  }
}

let schemas: V1Schemas | undefined;
const loaded = () => (schemas ??= new V1Schemas());

/** Every schema problem of a 1.0 document, located by JSON pointer. */
export function validateV1Schema(doc: Obj): SchemaIssue[] {
  const s = loaded();
  const valid: (d: unknown) => boolean = s.full;
  if (valid(doc)) return [];
  const out: SchemaIssue[] = [];
  out.push(...explain(s.at(''), doc, ''));
  const checkList = (list: unknown, pointer: string) => {
    if (!Array.isArray(list)) return;
    list.forEach((item, i) => {
      if (!isObj(item) || Object.keys(item).length !== 1) return; // the list's own schema reports it
      const [name, task] = entryOf(item as Record<string, unknown>);
      checkTask(task, joinPointer(...splitPointer(pointer), i, name), name);
    });
  };
  const checkTask = (task: unknown, pointer: string, name: string) => {
    if (!isObj(task)) {
      out.push({ pointer, message: `task '${name}' must be an object` });
      return;
    }
    const type = taskTypeOf(task as Task);
    if (!type) {
      out.push({ pointer, message: `task '${name}' has no task type`, hint: `give it one of: ${TASK_TYPES.join(', ')}` });
      return;
    }
    let loc = `/$defs/${type}Task`;
    if (type === 'call') loc = `/$defs/callTask/oneOf/${s.callVariants[String(task.call)] ?? s.callVariants['*']}`;
    out.push(...explain(s.at(loc), task, pointer));
    const t = task as Task;
    if (type === 'for' || type === 'do') checkList(t.do, `${pointer}/do`);
    if (type === 'fork') checkList(t.fork?.branches, `${pointer}/fork/branches`);
    if (type === 'try') {
      checkList(t.try, `${pointer}/try`);
      checkList(t.catch?.do, `${pointer}/catch/do`);
    }
    if (type === 'listen') checkList(t.foreach?.do, `${pointer}/foreach/do`);
  };
  checkList(doc.do, '/do');
  const use = isObj(doc.use) ? doc.use : {};
  if (isObj(use.functions)) for (const [name, fn] of Object.entries(use.functions)) checkTask(fn, joinPointer('use', 'functions', name), name);
  if (Array.isArray(use.extensions)) {
    use.extensions.forEach((ext: unknown, i: number) => {
      if (!isObj(ext)) return;
      for (const [name, e] of Object.entries(ext)) {
        if (!isObj(e)) continue;
        checkList(e.before, joinPointer('use', 'extensions', i, name, 'before'));
        checkList(e.after, joinPointer('use', 'extensions', i, name, 'after'));
      }
    });
  }
  return out;
}

function splitPointer(p: string): string[] {
  return p ? p.slice(1).split('/').map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~')) : [];
}

const COMBINATORS = new Set(['oneOf', 'anyOf', 'allOf', 'if', 'not', 'then', 'else']);

/**
 * The errors worth showing: the deepest ones (the author's mistake is where the data stops
 * fitting every alternative), several at one place merged into one message.
 */
function explain(validate: ValidateFunction, value: unknown, base: string): SchemaIssue[] {
  if (validate(value)) return [];
  const errors = (validate.errors ?? []).map((e) => ({ e, at: where(e) }));
  const leaves = errors.filter((x) => !COMBINATORS.has(x.e.keyword));
  const pool = leaves.length ? leaves : errors;
  const depth = (p: string) => (p ? p.split('/').length : 0);
  const max = Math.max(...pool.map((x) => depth(x.at)));
  const byPath = new Map<string, ErrorObject[]>();
  for (const x of pool) if (depth(x.at) === max) byPath.set(x.at, [...(byPath.get(x.at) ?? []), x.e]);
  const out: SchemaIssue[] = [];
  for (const [at, list] of byPath) out.push(message(list, base + at));
  return out;
}

/** Where an error is: the instance path, or the offending property for property errors. */
function where(e: ErrorObject): string {
  const p = e.params as Record<string, string>;
  if (e.keyword === 'unevaluatedProperties') return e.instancePath + joinPointer(p.unevaluatedProperty);
  if (e.keyword === 'additionalProperties') return e.instancePath + joinPointer(p.additionalProperty);
  return e.instancePath;
}

function subject(pointer: string): string {
  const segs = splitPointer(pointer);
  return segs.length ? `'${segs[segs.length - 1]}'` : 'the document';
}

function message(list: ErrorObject[], pointer: string): SchemaIssue {
  const first = list[0];
  const p = first.params as Record<string, any>;
  if (first.keyword === 'unevaluatedProperties' || first.keyword === 'additionalProperties') {
    return { pointer, message: `unknown property ${subject(pointer)}`, key: true };
  }
  // A `duration` that fits none of its forms: say the forms, not the schema's regular expressions.
  if (list.some((e) => e.keyword === 'pattern' && String((e.params as { pattern: string }).pattern).startsWith('^P(?!$)'))) {
    return { pointer, message: `${subject(pointer)} is not a duration: write an ISO 8601 duration ("PT30S", "P1DT2H"), an inline one ({ minutes: 5 }), or a runtime expression ("\${ … }") that yields one` };
  }
  const types = list.filter((e) => e.keyword === 'type').map((e) => String((e.params as { type: string }).type));
  if (types.length === list.length) return { pointer, message: `${subject(pointer)} must be ${[...new Set(types)].map(article).join(' or ')}` };
  if (first.keyword === 'required') {
    const missing = [...new Set(list.filter((e) => e.keyword === 'required').map((e) => (e.params as { missingProperty: string }).missingProperty))];
    return { pointer, message: `${subject(pointer)} is missing required property ${missing.map((m) => `'${m}'`).join(' or ')}` };
  }
  if (first.keyword === 'enum') return { pointer, message: `${subject(pointer)} must be one of: ${(p.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}` };
  if (first.keyword === 'const') return { pointer, message: `${subject(pointer)} must be ${JSON.stringify(p.allowedValue)}` };
  const texts = [...new Set(list.map((e) => e.message ?? e.keyword))];
  return { pointer, message: `${subject(pointer)} ${texts.slice(0, 3).join(', or ')}` };
}

function article(t: string): string {
  if (t === 'object' || t === 'array' || t === 'integer') return `an ${t}`;
  if (t === 'null') return 'null';
  return `a ${t}`;
}
