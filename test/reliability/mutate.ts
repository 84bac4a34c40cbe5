/**
 * Mutations of corpus definitions for the `swflow validate` fuzz test: structural ones on the parsed
 * document (deleted keys, wrong types, transition cycles, deep nesting) and textual ones (truncation,
 * garbage bytes, non-UTF-8, YAML alias bombs, 10 MB documents). Deterministic: a seeded PRNG.
 */
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { mulberry32 as prng } from '../helpers/prng';

export interface Mutant {
  /** What was done, for a failing assertion's message. */
  name: string;
  /** The document's bytes. */
  bytes: Buffer;
  /** The file name's extension (.json or .yaml), as validate reads by content anyway. */
  ext: string;
}

type Rand = () => number;
const pick = <T>(r: Rand, xs: T[]): T => xs[Math.floor(r() * xs.length)];

/** Every [container, key] pair of a parsed document. */
function slots(doc: unknown): [Record<string, unknown> | unknown[], string | number][] {
  const out: [Record<string, unknown> | unknown[], string | number][] = [];
  const walk = (v: unknown, depth: number) => {
    if (depth > 200 || v === null || typeof v !== 'object') return;
    if (Array.isArray(v)) v.forEach((x, i) => (out.push([v, i]), walk(x, depth + 1)));
    else for (const [k, x] of Object.entries(v)) out.push([v as Record<string, unknown>, k]), walk(x, depth + 1);
  };
  walk(doc, 0);
  return out;
}

const DEEP = '\u0000deep\u0000';
const DEEP_TEXT = '{"n":['.repeat(5000) + '"leaf"' + ']}'.repeat(5000);

const WRONG: unknown[] = [null, 0, -1, 1.5, '', 'x', true, [], [null], {}, { a: 1 }, '${ .a | }', 'PT', 1e308, '\u0000'];

/** One structural mutation of a parsed document (mutates `doc`); its name. */
function mutateDoc(doc: unknown, r: Rand): string {
  const all = slots(doc);
  if (!all.length) return 'empty';
  const [where, key] = pick(r, all);
  const kind = pick(r, ['delete', 'delete', 'wrong-type', 'wrong-type', 'cycle', 'deep', 'duplicate']);
  const set = (v: unknown) => ((where as Record<string | number, unknown>)[key] = v);
  switch (kind) {
    case 'delete':
      if (Array.isArray(where)) where.splice(key as number, 1);
      else delete where[key as string];
      return `delete ${String(key)}`;
    case 'wrong-type': {
      const v = pick(r, WRONG);
      set(v);
      return `${String(key)} = ${JSON.stringify(v)}`;
    }
    case 'cycle': {
      // Every state transitions to the next one, the last one back to the first: no end.
      const states = (doc as { states?: unknown }).states;
      if (!Array.isArray(states) || !states.length) return mutateDoc(doc, r);
      const names = states.map((s) => (s as { name?: unknown })?.name);
      states.forEach((s, i) => {
        if (s && typeof s === 'object') {
          delete (s as Record<string, unknown>).end;
          (s as Record<string, unknown>).transition = names[(i + 1) % names.length];
        }
      });
      return 'transition cycle';
    }
    case 'deep': {
      set(DEEP); // replaced by the nesting in the text (JSON.stringify itself cannot nest that deep)
      return `${String(key)} = 10,000-level nesting`;
    }
    default: {
      const v = (where as Record<string | number, unknown>)[key];
      set(Array.isArray(v) ? [...v, ...v] : [v, v]);
      return `${String(key)} duplicated`;
    }
  }
}

/** One textual mutation of a document's bytes; its name. */
function mutateText(text: Buffer, r: Rand): { name: string; bytes: Buffer } {
  const at = Math.floor(r() * text.length);
  switch (pick(r, ['truncate', 'garbage', 'non-utf8', 'swap'])) {
    case 'truncate':
      return { name: `truncated at ${at}`, bytes: text.subarray(0, at) };
    case 'garbage':
      return { name: `garbage at ${at}`, bytes: Buffer.concat([text.subarray(0, at), Buffer.from(pick(r, ['{{', ']]', ': :', '\t- ', '"', '&a *a', '!!binary', '%YAML 9'])), text.subarray(at)]) };
    case 'non-utf8':
      return { name: `non-UTF-8 bytes at ${at}`, bytes: Buffer.concat([text.subarray(0, at), Buffer.from([0xff, 0xfe, 0xc3, 0x28]), text.subarray(at)]) };
    default: {
      const b = Buffer.from(text);
      const j = Math.floor(r() * b.length);
      [b[at], b[j]] = [b[j], b[at]];
      return { name: `bytes ${at} and ${j} swapped`, bytes: b };
    }
  }
}

/** `n` mutants of corpus files (round robin), half structural, half textual. */
export function mutants(files: string[], n: number, seed = 13): Mutant[] {
  const r = prng(seed);
  const out: Mutant[] = [];
  for (let i = 0; i < n; i++) {
    const file = files[i % files.length];
    const text = readFileSync(file);
    const ext = /\.json$/i.test(file) ? '.json' : '.yaml';
    if (i % 2 === 0) {
      let doc: unknown;
      try {
        doc = parse(text.toString('utf8'));
      } catch {
        continue;
      }
      const names = [mutateDoc(doc, r)];
      if (r() < 0.3) names.push(mutateDoc(doc, r));
      out.push({ name: `${file}: ${names.join(', ')}`, bytes: Buffer.from(JSON.stringify(doc).replaceAll(JSON.stringify(DEEP), DEEP_TEXT)), ext: '.json' });
    } else {
      const m = mutateText(text, r);
      out.push({ name: `${file}: ${m.name}`, bytes: m.bytes, ext });
    }
  }
  return out;
}

/** The pathological documents: alias bombs, 10 MB, deep nesting as text, non-UTF-8, empty, binary. */
export function pathological(): Mutant[] {
  const bomb = ['a: &a ["x","x","x","x","x","x","x","x","x","x"]'];
  for (let i = 1; i < 12; i++) bomb.push(`${String.fromCharCode(97 + i)}: &${String.fromCharCode(97 + i)} [${Array(10).fill(`*${String.fromCharCode(96 + i)}`).join(',')}]`);
  const states = Array.from({ length: 60000 }, (_, i) => ({ name: `S${i}`, type: 'inject', data: { i, pad: 'x'.repeat(100) }, ...(i < 59999 ? { transition: `S${i + 1}` } : { end: true }) }));
  const big = JSON.stringify({ id: 'big', specVersion: '0.8', start: 'S0', states });
  const deepJson = '{"id":"deep","specVersion":"0.8","start":"A","states":[{"name":"A","type":"inject","end":true,"data":' + '{"n":'.repeat(10000) + '1' + '}'.repeat(10000) + '}]}';
  const deepYaml = 'id: deep\nspecVersion: "0.8"\nstart: A\nstates:\n  - name: A\n    type: inject\n    end: true\n    data: ' + '['.repeat(10000) + ']'.repeat(10000) + '\n';
  const deepFlow = 'id: deep\n' + '- '.repeat(0) + 'x: ' + '{a: '.repeat(10000) + '1' + '}'.repeat(10000) + '\n';
  return [
    { name: 'YAML alias bomb (10^12 nodes)', bytes: Buffer.from(bomb.join('\n') + '\nid: bomb\nspecVersion: "0.8"\nstates: *l\n'), ext: '.yaml' },
    { name: '10 MB document (60,000 states)', bytes: Buffer.from(big), ext: '.json' },
    { name: '10,000-level nesting (JSON)', bytes: Buffer.from(deepJson), ext: '.json' },
    { name: '10,000-level nesting (YAML flow sequences)', bytes: Buffer.from(deepYaml), ext: '.yaml' },
    { name: '10,000-level nesting (YAML flow mappings)', bytes: Buffer.from(deepFlow), ext: '.yaml' },
    { name: 'non-UTF-8 (Latin-1 text)', bytes: Buffer.from('id: caf\xe9\nspecVersion: "0.8"\n', 'latin1'), ext: '.yaml' },
    { name: 'empty file', bytes: Buffer.alloc(0), ext: '.yaml' },
    { name: 'binary garbage', bytes: Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919) % 256)), ext: '.json' },
  ];
}
