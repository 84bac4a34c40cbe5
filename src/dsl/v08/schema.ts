/**
 * Validation against the specification's own 0.8 JSON schemas (Draft-07, copied verbatim to
 * ./schema/0.8 from the 0.8.x branch), with ajv.
 *
 * ajv's raw error list for these schemas is mostly oneOf/anyOf noise (every state is tried
 * against every state type). So we do not show it: `explain` walks the schema itself, asks
 * ajv only about one schema location at a time, picks the alternative of a oneOf/anyOf that
 * fits the value (by JSON type, `type` const, required properties, or fewest errors), and
 * turns the remaining leaf errors into short messages with the JSON pointer of the culprit.
 */
import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { joinPointer } from '../source';

export const SCHEMA_BASE = 'https://serverlessworkflow.io/schemas/0.8/';
const FILES = ['common', 'auth', 'errors', 'events', 'functions', 'odata', 'retries', 'secrets', 'timeouts', 'workflow', 'extensions/kpi', 'extensions/ratelimiting'];

export interface SchemaIssue {
  pointer: string;
  message: string;
  /** Point at the property name rather than its value (unknown properties). */
  key?: boolean;
  hint?: string;
}

type Schema = Record<string, any> | boolean;

class SchemaSet {
  readonly ajv: Ajv;
  readonly docs = new Map<string, any>();
  private cache = new Map<string, ValidateFunction>();
  private shallowCache = new Map<string, ValidateFunction>();

  constructor(dir: string) {
    this.ajv = new Ajv({ allErrors: true, strict: false, validateFormats: true });
    addFormats(this.ajv);
    for (const f of FILES) {
      const json = JSON.parse(fs.readFileSync(path.join(dir, f + '.json'), 'utf8'));
      this.docs.set(json.$id, json);
      this.ajv.addSchema(json);
    }
  }

  validator(loc: string): ValidateFunction {
    let v = this.cache.get(loc);
    if (!v) {
      v = this.ajv.getSchema(loc);
      if (!v) throw new Error(`schema location not found: ${loc}`);
      this.cache.set(loc, v);
    }
    return v;
  }

  /** The schema object at an absolute location `uri#/json/pointer`. */
  at(loc: string): Schema {
    const [uri, frag = ''] = loc.split('#');
    let node: any = this.docs.get(uri);
    if (node === undefined) throw new Error(`unknown schema ${uri}`);
    for (const seg of frag.split('/').filter(Boolean)) node = node?.[decodeURIComponent(seg).replace(/~1/g, '/').replace(/~0/g, '~')];
    if (node === undefined) throw new Error(`schema location not found: ${loc}`);
    return node;
  }

  /** Follow `$ref`s from `loc` to the location of an actual schema. */
  deref(loc: string): string {
    for (let i = 0; i < 20; i++) {
      const s = this.at(loc);
      if (typeof s !== 'object' || typeof s.$ref !== 'string') return loc;
      const [uri] = loc.split('#');
      const ref: string = s.$ref;
      if (ref.startsWith('#')) loc = uri + ref;
      else {
        const [file, frag = ''] = ref.split('#');
        loc = new URL(file, uri).toString() + '#' + frag;
      }
    }
    return loc;
  }

  /** A validator for the keywords of `loc` that do not descend into children. */
  shallow(loc: string): ValidateFunction {
    let v = this.shallowCache.get(loc);
    if (!v) {
      const s = this.at(loc) as Record<string, any>;
      const copy: Record<string, any> = {};
      for (const [k, val] of Object.entries(s)) {
        if (['oneOf', 'anyOf', 'allOf', 'if', 'then', 'else', 'not', '$ref', '$id', 'definitions', 'items', 'additionalItems', 'dependencies'].includes(k)) continue;
        if (k === 'properties') copy.properties = Object.fromEntries(Object.keys(val).map((p) => [p, true]));
        else copy[k] = val;
      }
      v = this.ajv.compile(copy);
      this.shallowCache.set(loc, v);
    }
    return v;
  }
}

let set: SchemaSet | undefined;
function schemas(): SchemaSet {
  if (!set) set = new SchemaSet(path.join(__dirname, 'schema'));
  return set;
}

/** Validate a (0.8-shaped) workflow document; returns readable issues (empty when valid). */
export function validateSchema(doc: unknown): SchemaIssue[] {
  const s = schemas();
  const root = SCHEMA_BASE + 'workflow.json#';
  if (s.validator(root)(doc)) return [];
  const out: SchemaIssue[] = [];
  explain(s, root, doc, '', out);
  return dedupe(out);
}

/** Validate a value against one definition, e.g. `functions.json#/definitions/function`. */
export function validateAgainst(loc: string, value: unknown, pointer = ''): SchemaIssue[] {
  const s = schemas();
  const abs = SCHEMA_BASE + loc;
  if (s.validator(abs)(value)) return [];
  const out: SchemaIssue[] = [];
  explain(s, abs, value, pointer, out);
  return dedupe(out);
}

function dedupe(list: SchemaIssue[]): SchemaIssue[] {
  const seen = new Set<string>();
  return list.filter((i) => {
    const k = i.pointer + '|' + i.message;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

function jsonType(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

function typeMatches(schemaType: unknown, v: unknown): boolean {
  if (schemaType === undefined) return true;
  const types = Array.isArray(schemaType) ? schemaType : [schemaType];
  const t = jsonType(v);
  return types.some((x) => x === t || (x === 'number' && t === 'integer'));
}

function article(t: string): string {
  return /^[aeiou]/.test(t) ? `an ${t}` : `a ${t}`;
}

function subject(pointer: string): string {
  const segs = pointer.split('/').filter(Boolean);
  if (!segs.length) return 'the document';
  const last = segs[segs.length - 1];
  if (/^\d+$/.test(last) && segs.length > 1) return `${segs[segs.length - 2]}[${last}]`;
  return `'${last}'`;
}

function explain(s: SchemaSet, loc: string, value: unknown, pointer: string, out: SchemaIssue[]): void {
  loc = s.deref(loc);
  if (s.validator(loc)(value)) return;
  const schema = s.at(loc);
  if (schema === false) {
    out.push({ pointer, message: `${subject(pointer)} is not allowed here` });
    return;
  }
  if (typeof schema !== 'object') return;

  // Keywords of this level that do not descend (type, required, enum, additionalProperties...).
  const shallow = s.shallow(loc);
  if (!shallow(value)) {
    for (const e of shallow.errors ?? []) out.push(leaf(e, pointer, value));
    // A wrong type makes everything below meaningless.
    if ((shallow.errors ?? []).some((e) => e.keyword === 'type')) return;
  }

  if (Array.isArray(schema.allOf)) schema.allOf.forEach((_: unknown, i: number) => explain(s, `${loc}/allOf/${i}`, value, pointer, out));
  if (schema.if !== undefined) {
    const cond = s.validator(`${loc}/if`)(value);
    if (cond && schema.then !== undefined) explain(s, `${loc}/then`, value, pointer, out);
    if (!cond && schema.else !== undefined) explain(s, `${loc}/else`, value, pointer, out);
  }
  for (const kw of ['oneOf', 'anyOf'] as const) {
    if (Array.isArray(schema[kw])) alternatives(s, `${loc}/${kw}`, kw, schema[kw], value, pointer, out);
  }

  // Children.
  if (value && typeof value === 'object' && !Array.isArray(value) && schema.properties) {
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      if (k in schema.properties) explain(s, `${loc}/properties/${escapeFrag(k)}`, v, pointer + joinPointer(k), out);
    }
  }
  if (Array.isArray(value) && schema.items && !Array.isArray(schema.items)) {
    (value as unknown[]).forEach((v: unknown, i: number) => explain(s, `${loc}/items`, v, `${pointer}/${i}`, out));
  }
}

function escapeFrag(k: string): string {
  return k.replace(/~/g, '~0').replace(/\//g, '~1');
}

function requiredOnly(b: unknown): string[] | undefined {
  if (!b || typeof b !== 'object') return undefined;
  const keys = Object.keys(b as object);
  if (keys.length === 1 && Array.isArray((b as any).required)) return (b as any).required;
  return undefined;
}

function alternatives(s: SchemaSet, loc: string, kw: 'oneOf' | 'anyOf', branches: Schema[], value: unknown, pointer: string, out: SchemaIssue[]): void {
  const locs = branches.map((_, i) => s.deref(`${loc}/${i}`));
  const passing = locs.filter((l) => s.validator(l)(value));
  if (passing.length === 1 || (kw === 'anyOf' && passing.length > 1)) return;

  // Branches that only differ by required properties: say which property is expected.
  const reqs = branches.map(requiredOnly);
  if (reqs.every((r) => r)) {
    const distinctive = (i: number) => reqs[i]!.filter((p) => !reqs.every((r) => r!.includes(p)));
    const names = [...new Set(reqs.flatMap((_, i) => distinctive(i)))];
    const obj = (value ?? {}) as Record<string, unknown>;
    if (passing.length > 1) {
      const present = names.filter((n) => n in obj);
      out.push({ pointer, message: present.length > 1 ? `${subject(pointer)} must not have both ${present.map((n) => `'${n}'`).join(' and ')}` : `${subject(pointer)} matches more than one allowed form` });
      return;
    }
    // Missing common required properties are reported by the branch check below.
    const common = reqs[0]!.filter((p) => reqs.every((r) => r!.includes(p)));
    for (const c of common) if (!(c in obj)) out.push({ pointer, message: `${subject(pointer)} is missing required property '${c}'` });
    if (names.length && !names.some((n) => n in obj)) {
      out.push({ pointer, message: `${subject(pointer)} must have ${names.map((n) => `'${n}'`).join(' or ')}` });
    }
    return;
  }

  if (passing.length > 1) {
    out.push({ pointer, message: `${subject(pointer)} matches more than one allowed form` });
    return;
  }

  // Keep the branches whose type (and `type` const, for states) fit the value.
  const fits = locs.filter((l) => {
    const b = s.at(l) as Record<string, any>;
    if (typeof b !== 'object') return true;
    if (!typeMatches(b.type, value)) return false;
    const cs = typeConsts(s, l);
    if (cs.length && value && typeof value === 'object' && !cs.includes((value as any).type)) return false;
    return true;
  });
  if (fits.length === 0) {
    const consts = locs.flatMap((l) => typeConsts(s, l));
    if (consts.length && value && typeof value === 'object' && !Array.isArray(value)) {
      const t = (value as any).type;
      out.push(
        t === undefined
          ? { pointer, message: `${subject(pointer)} is missing required property 'type'` }
          : { pointer: pointer + '/type', message: `unknown type '${t}'`, hint: `expected one of: ${[...new Set(consts)].join(', ')}` },
      );
      return;
    }
    const types = [...new Set(locs.map((l) => (s.at(l) as any)?.type).flat().filter(Boolean))];
    out.push({ pointer, message: `${subject(pointer)} must be ${types.map(article).join(' or ') || 'of another form'}` });
    return;
  }
  // Fewest problems wins: that is the form the author meant.
  let best: SchemaIssue[] | undefined;
  const missing: string[] = [];
  let allMissing = true;
  for (const l of fits) {
    const issues: SchemaIssue[] = [];
    explain(s, l, value, pointer, issues);
    const m = issues.length === 1 && issues[0].pointer === pointer ? /is missing required property '(.*)'$/.exec(issues[0].message) : null;
    if (m) missing.push(m[1]);
    else allMissing = false;
    if (!best || issues.length < best.length) best = issues;
  }
  if (allMissing && missing.length > 1) {
    out.push({ pointer, message: `${subject(pointer)} must have ${[...new Set(missing)].map((n) => `'${n}'`).join(' or ')}` });
    return;
  }
  out.push(...(best ?? []));
}

/** The `type` constants a (state) schema accepts, looking through oneOf/anyOf. */
function typeConsts(s: SchemaSet, loc: string, depth = 0): unknown[] {
  loc = s.deref(loc);
  const b = s.at(loc) as Record<string, any>;
  if (typeof b !== 'object' || depth > 5) return [];
  if (b.properties?.type?.const !== undefined) return [b.properties.type.const];
  const out: unknown[] = [];
  for (const kw of ['oneOf', 'anyOf']) if (Array.isArray(b[kw])) b[kw].forEach((_: unknown, i: number) => out.push(...typeConsts(s, `${loc}/${kw}/${i}`, depth + 1)));
  return out;
}

function leaf(e: ErrorObject, pointer: string, value: unknown): SchemaIssue {
  const p = e.params as Record<string, any>;
  const subj = subject(pointer);
  switch (e.keyword) {
    case 'required':
      return { pointer, message: `${subj} is missing required property '${p.missingProperty}'` };
    case 'additionalProperties':
      return { pointer: pointer + joinPointer(p.additionalProperty), message: `unknown property '${p.additionalProperty}'`, key: true };
    case 'type':
      return { pointer, message: `${subj} must be ${String(p.type).split(',').map(article).join(' or ')}` };
    case 'enum':
      return { pointer, message: `${subj} must be one of: ${(p.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')} (got ${JSON.stringify(value)})` };
    case 'const':
      return { pointer, message: `${subj} must be ${JSON.stringify(p.allowedValue)}` };
    case 'minLength':
      return { pointer, message: `${subj} must not be empty` };
    case 'minItems':
      return { pointer, message: `${subj} must have at least ${p.limit} item${p.limit === 1 ? '' : 's'}` };
    case 'format':
      return { pointer, message: `${subj} must be a valid ${p.format} (got ${JSON.stringify(value)})` };
    case 'minimum':
    case 'maximum':
      return { pointer, message: `${subj} must be ${e.keyword === 'minimum' ? '>=' : '<='} ${p.limit}` };
    case 'uniqueItems':
      return { pointer, message: `${subj} must not contain duplicates` };
    default:
      return { pointer, message: `${subj} ${e.message}` };
  }
}
