/**
 * Likely-mistake warnings of 1.0 documents (src/dsl/v1/lint.ts) and the hint of a `then` that
 * leaves its list (src/dsl/v1/semantic.ts): each warning with its position, message and hint, the
 * near misses that must not warn, `swflow validate` (spawned) and `--strict`; and no new warning on
 * the spec's examples, the CTK's definitions or the shared corpus.
 */
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadAnyDefinition, loadAnyDefinitionFile, type Finding } from '../../src/dsl';
import { CORPUS, SHARED, includeDirsFor, manifest } from './corpus-lib';

const ROOT = path.resolve(__dirname, '..', '..');
const SPEC = path.join(SHARED, 'specs', 'serverless-workflow-1.0.3');

/** The messages of the new warnings, 1.0 and 0.8 (to tell them from the others). */
const LINT = [/under 'with' is /, /is not a CloudEvents attribute; did you mean/, /an emit task, whose output is the event it emitted/];
const isLint = (p: Finding) => p.severity === 'warning' && LINT.some((re) => re.test(p.message));

const HEAD = "document: { dsl: '1.0.3', namespace: test, name: lint, version: '1.0.0' }\n";

async function findings(body: string): Promise<{ all: Finding[]; lint: Finding[]; valid: boolean }> {
  const r = await loadAnyDefinition(HEAD + body, { source: 'lint.sw.yaml' });
  return { all: r.problems, lint: r.problems.filter(isLint), valid: r.definition !== undefined };
}

function brief(p: Finding): string {
  return `${p.line}:${p.col} ${p.severity}: ${p.message} (${p.hint})`;
}

test('lint: correlate written inside a listen filter\'s with warns at the key, with the fix', async () => {
  const { lint, valid } = await findings(`do:
  - waitForPayment:
      listen:
        to:
          one:
            with:
              type: com.shop.payment.received
              correlate:
                orderId: { from: .data.orderId, expect: '\${ .orderId }' }
`);
  assert.ok(valid, 'still valid: a warning, not an error');
  assert.equal(lint.length, 1, lint.map(brief).join('\n'));
  const [w] = lint;
  assert.equal(w.severity, 'warning');
  assert.deepEqual([w.line, w.col], [9, 15]);
  assert.equal(w.pointer, '/do/0/waitForPayment/listen/to/one/with/correlate');
  assert.match(w.message, /'correlate' under 'with' is read as an event attribute named 'correlate' that events must carry, not as the filter's correlation: no event matches/);
  assert.match(w.hint ?? '', /did you mean to put correlate beside with/);
  console.log(`correlate in with: ${brief(w)}`);
});

test('lint: other listen keywords and a bare correlation under with (any, until, schedule.on) warn', async () => {
  const { lint, valid } = await findings(`schedule:
  on:
    one:
      with:
        type: com.shop.order.placed
        orderId: { from: .data.id }
do:
  - collect:
      listen:
        to:
          any:
            - with:
                type: com.shop.item.added
                until: \${ . | length > 3 }
          until:
            one:
              with:
                type: com.shop.closed
                read: envelope
`);
  assert.ok(valid);
  assert.deepEqual(
    lint.map((p) => [p.line, p.col, p.pointer]),
    [
      [7, 9, '/schedule/on/one/with/orderId'],
      [15, 17, '/do/0/collect/listen/to/any/0/with/until'],
      [20, 17, '/do/0/collect/listen/to/until/one/with/read'],
    ],
  );
  assert.match(lint[0].message, /'orderId' under 'with' is a correlation \(from\/expect\)/);
  assert.match(lint[0].hint ?? '', /did you mean correlate: \{ orderId: \{ from: … \} \} beside with\?/);
  assert.match(lint[1].message, /'until' under 'with' is read as an event attribute named 'until'.*not as the listen's 'until'/);
  assert.match(lint[1].hint ?? '', /did you mean to put until under listen\.to, beside any/);
  assert.match(lint[2].hint ?? '', /did you mean to put read under listen, beside to/);
  for (const w of lint) console.log(`misplaced under with: ${brief(w)}`);
});

test('lint: near misses of CloudEvents attributes warn (filter and emit); extensions and exact names do not', async () => {
  const { lint } = await findings(`do:
  - wait:
      listen:
        to:
          all:
            - with: { sorce: https://shop.example, typ: com.shop.a }
            - with: { type: com.shop.b, dataContentType: application/json, tpye: x }
            - with: { type: com.shop.c, orderid: '42', traceparent: abc, correlationid: x, partitionkey: p, region: eu, kind: k, date: d, tame: t, ids: x }
  - tell:
      emit:
        event:
          with: { sorce: https://shop.example, type: com.shop.told, DataSchema: https://s.example/s.json }
`);
  const got = lint.map((p) => `${p.line}:${p.col} ${p.message.match(/'(\w+)' is not a CloudEvents attribute; did you mean '(\w+)'/)?.slice(1).join('->')}`);
  assert.deepEqual(got, ['7:23 sorce->source', '7:52 typ->type', '8:41 dataContentType->datacontenttype', '13:19 sorce->source']);
  assert.match(lint[0].message, /as written, the filter waits for events that carry an extension attribute of that name/);
  assert.match(lint[3].message, /as written, the event is emitted with an extension attribute of that name/);
  assert.match(lint[0].hint ?? '', /^write 'source'/);
  // `tpye` is 1 from `type`, but the same with gives `type`; `date` and `tame` change a letter of data and time: words of their own.
  for (const w of lint) console.log(`attribute near miss: ${brief(w)}`);
  console.log(`not warned: orderid, traceparent, correlationid, partitionkey, region, kind, date, tame, ids, tpye (type given), DataSchema in an emit (swflow lower-cases emitted names); warned ${lint.length}`);
});

test('lint: a task reading a field right after an emit (whose output is the event) warns; the safe shapes do not', async () => {
  const { lint } = await findings(`do:
  - announce:
      emit:
        event:
          with: { source: https://shop.example, type: com.shop.placed, orderno: '1', data: { id: 1 } }
  - charge:
      call: http
      with:
        method: post
        endpoint: https://pay.example/charge
        body: { order: '\${ .orderId }', data: '\${ .data.id }', no: '\${ .orderno }', all: '\${ . }', ctx: '\${ $context.x }', alt: '\${ .orderId // "none" }', n: '\${ .n? }' }
`);
  assert.equal(lint.length, 1, lint.map(brief).join('\n'));
  const [w] = lint;
  assert.deepEqual([w.line, w.col, w.pointer], [12, 24, '/do/1/charge/with/body/order']);
  assert.match(w.message, /^'\.orderId' reads the output of 'announce' \(line 3\), an emit task, whose output is the event it emitted: it has no 'orderId', so this is null$/);
  assert.match(w.hint ?? '', /give 'announce' output: \{ as: '\$\{ \$input \}' \}/);
  console.log(`read after emit: ${brief(w)}`);

  // Not certain, so no warning: output.as on the emit; an `if` that may skip it; another way into the reader;
  // the reader first in its list (reached by then); fork branches; input.from reading the context.
  const safe = await findings(`do:
  - a1:
      emit: { event: { with: { source: https://s.example, type: t } } }
      output: { as: '\${ $input }' }
  - r1:
      set: { x: '\${ .orderId }' }
  - a2:
      if: \${ .send }
      emit: { event: { with: { source: https://s.example, type: t } } }
  - r2:
      set: { x: '\${ .orderId }' }
  - a3:
      emit: { event: { with: { source: https://s.example, type: t } } }
  - r3:
      set: { x: '\${ .orderId }' }
  - back:
      switch:
        - again: { when: '\${ .more }', then: r3 }
  - par:
      fork:
        branches:
          - b1: { emit: { event: { with: { source: https://s.example, type: t } } } }
          - b2: { set: { x: '\${ .orderId }' } }
  - a4:
      emit: { event: { with: { source: https://s.example, type: t } } }
  - r4:
      input: { from: '\${ $context }' }
      set: { x: '\${ .orderId }' }
`);
  assert.deepEqual(safe.lint.map(brief), []);
  // And `then` straight to the reader counts, as does a switch `when` or a `for.in`.
  const via = await findings(`do:
  - a:
      emit: { event: { with: { source: https://s.example, type: t } } }
      then: r
  - skipped:
      set: { y: 1 }
      then: end
  - r:
      switch:
        - big: { when: .total > 100, then: end }
`);
  assert.deepEqual(via.lint.map((p) => p.pointer), ['/do/2/r/switch/0/big/when']);
  console.log(`read after emit: 6 safe shapes gave 0 warnings; through then: ${brief(via.lint[0])}`);
});

test('then to a task of another list: the error names the list that holds it', async () => {
  const { all, valid } = await findings(`do:
  - first:
      set: { a: 1 }
      then: inner
  - outer:
      do:
        - inner:
            set: { b: 1 }
            then: first
`);
  assert.equal(valid, false);
  const errors = all.filter((p) => p.severity === 'error');
  assert.equal(errors.length, 2, errors.map(brief).join('\n'));
  assert.deepEqual([errors[0].line, errors[0].col], [5, 13]);
  assert.match(errors[0].hint ?? '', /^'inner' is in the do list of task 'outer' \(\/do\/1\/outer\/do, line 7\); flow directives may only go to tasks of their own list: first, outer$/);
  assert.deepEqual([errors[1].line, errors[1].col], [10, 19]);
  assert.match(errors[1].hint ?? '', /^'first' is in the list \/do, line 2; flow directives may only go to tasks of their own list: inner$/);
  for (const e of errors) console.log(`then across lists: ${brief(e)}`);
});

test('0.8: a correlation contextAttributeName that is a near miss of a core attribute warns; extensions do not', async () => {
  const r = await loadAnyDefinition(`id: lint08
version: '1.0'
specVersion: '0.8'
start: Wait
events:
  - name: Paid
    source: shop
    type: com.shop.paid
    correlation:
      - contextAttributeName: subjet
      - contextAttributeName: orderid
      - contextAttributeName: patientId
      - contextAttributeName: Type
states:
  - name: Wait
    type: event
    onEvents:
      - eventRefs: [Paid]
    end: true
`, { source: 'lint08.sw.yaml' });
  assert.ok(r.definition, 'still valid');
  const lint = r.problems.filter(isLint);
  assert.deepEqual(lint.map((p) => [p.line, p.col, p.pointer]), [
    [10, 31, '/events/0/correlation/0/contextAttributeName'],
    [13, 31, '/events/0/correlation/3/contextAttributeName'],
  ]);
  assert.match(lint[0].message, /^correlation contextAttributeName 'subjet' is not a CloudEvents attribute; did you mean 'subject'\? \(as written, events of 'Paid' must carry an extension attribute of that name\)$/);
  assert.match(lint[0].hint ?? '', /^write 'subject'/);
  assert.match(lint[1].message, /'Type' is not a CloudEvents attribute; did you mean 'type'/);
  for (const w of lint) console.log(`0.8 correlation: ${brief(w)}`);
  console.log('0.8 not warned: orderid, patientId (extensions; the 0.8 examples correlate on patientId)');
});

test('swflow validate (spawned) prints the warnings located; --strict refuses', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'swflow-lint-'));
  const f = path.join(dir, 'payment.sw.yaml');
  fs.writeFileSync(f, `${HEAD}do:
  - waitForPayment:
      listen:
        to:
          one:
            with:
              type: com.shop.payment.received
              correlate:
                orderId: { from: .data.orderId }
`);
  try {
    const run = (...args: string[]) => spawnSync(process.execPath, ['--import', 'tsx', path.join(ROOT, 'src/cli/main.ts'), 'validate', ...args, f], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
    const r = run();
    assert.equal(r.status, 0, r.stderr);
    const lines = r.stdout.trim().split('\n');
    assert.equal(lines.length, 2, r.stdout);
    assert.match(lines[0], new RegExp(`^${f.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:9:15: warning: 'correlate' under 'with' is read as an event attribute .* \\(did you mean to put correlate beside with`));
    assert.match(lines[1], /valid \(dsl 1\.0\.3, id test\/lint, 1 warning/);
    const strict = run('--strict');
    assert.equal(strict.status, 1, strict.stdout);
    assert.match(strict.stdout, /:9:15: error: 'correlate' under 'with' .*\(strict\)/);
    const json = JSON.parse(run('--json').stdout) as { problems: Finding[] }[];
    assert.equal(json[0].problems[0].hint?.startsWith('did you mean to put correlate beside with'), true);
    console.log(`swflow validate: exit ${r.status}, ${lines[0].replace(dir, '<tmp>')}; --strict: exit ${strict.status}`);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

/** The definitions of the CTK's features (`Given a workflow with definition:` blocks). */
function ctkDefinitions(): { name: string; text: string }[] {
  const dir = path.join(SPEC, 'ctk', 'features');
  const out: { name: string; text: string }[] = [];
  for (const f of fs.readdirSync(dir).filter((x) => x.endsWith('.feature')).sort()) {
    const text = fs.readFileSync(path.join(dir, f), 'utf8');
    const re = /a workflow with definition:\s*\n(\s*)"""yaml\n([\s\S]*?)\n\s*"""/g;
    let m: RegExpExecArray | null;
    let i = 0;
    while ((m = re.exec(text))) {
      const indent = m[1].replace(/\n/g, '').length;
      out.push({ name: `${f}#${++i}`, text: m[2].split('\n').map((l) => l.slice(indent)).join('\n') });
    }
  }
  return out;
}

test('no new warning on the spec\'s examples, the CTK\'s definitions and the corpus', { timeout: 300_000 }, async () => {
  const wrong: string[] = [];
  const counts = { examples: 0, ctk: 0, corpus: 0 };
  const examples = fs.readdirSync(path.join(SPEC, 'examples')).filter((f) => f.endsWith('.yaml')).sort();
  for (const f of examples) {
    const r = await loadAnyDefinitionFile(path.join(SPEC, 'examples', f));
    counts.examples++;
    for (const p of r.problems.filter(isLint)) wrong.push(`${f}: ${brief(p)}`);
  }
  for (const d of ctkDefinitions()) {
    const r = await loadAnyDefinition(d.text, { source: d.name });
    counts.ctk++;
    for (const p of r.problems.filter(isLint)) wrong.push(`${d.name}: ${brief(p)}`);
  }
  for (const e of manifest().filter((x) => ['workflow', 'subflow', 'valid', 'invalid'].includes(x.cls))) {
    const r = await loadAnyDefinitionFile(path.join(CORPUS, e.file), { includeDirs: includeDirsFor(e.file) });
    counts.corpus++;
    for (const p of r.problems.filter(isLint)) wrong.push(`${e.file}: ${brief(p)}`);
  }
  assert.ok(examples.length > 60 && counts.ctk > 20 && counts.corpus > 200, JSON.stringify(counts));
  assert.deepEqual(wrong, []);
  console.log(`no false positives: ${counts.examples} spec examples, ${counts.ctk} CTK definitions, ${counts.corpus} corpus documents checked, 0 new warnings`);
});
