/**
 * The adapter SDK through the real interpreter on the dev server: a user adapter made with
 * defineAdapter on its own queue gets what CWM sends (the evaluated arguments as the activity
 * input) and the call's context from the `swflow-call` header; secret arguments that also read
 * the state data (`$SECRETS.keys[.tenant]`) resolve in the worker; error codes reach `onErrors`;
 * a failure names state, action and function.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { defaultPayloadConverter } from '@temporalio/common';
import { PROJECT_ROOT } from '../../src/platform/paths';
import { AdapterError, createAdapterWorker, defineAdapter, networkFailure, ErrorCodes, CALL_HEADER, type ActivityContext } from '../../src/adapter-sdk';
import { historyText } from '../../src/testing/history';
import { adapterHarness, failureText, type AdapterHarness } from './harness';

const QUEUE = 'inventory-test';
const TENANT_KEYS = { acme: 'acme-key-7f3a9', globex: 'globex-key-c21d' };
let h: AdapterHarness;
const seen: { args: unknown; ctx: Partial<ActivityContext> & { taskQueue: string; activityType: string } }[] = [];

const inventory = defineAdapter({
  name: 'inventory',
  activities: {
    reserve(args: { sku: string; count: number }, ctx) {
      seen.push({ args, ctx: { state: ctx.state, action: ctx.action, workflow: ctx.workflow, function: ctx.function, taskQueue: ctx.info.taskQueue, activityType: ctx.info.activityType } });
      return { reserved: args.count, sku: args.sku };
    },
    tenantKey(args: { tenant: string; key: string }) {
      // Never return the secret: say whether it is the right one.
      return { keyIsTenants: args.key === (TENANT_KEYS as Record<string, string>)[args.tenant] };
    },
    outOfStock(args: { sku: string }) {
      throw new AdapterError('OutOfStock', `no ${args.sku} left`);
    },
    plainError() {
      throw Object.assign(new Error('the warehouse is closed'), { code: 'WarehouseClosed' });
    },
  },
});

before(async () => {
  h = await adapterHarness();
  h.serve(await createAdapterWorker({ connection: h.connection, taskQueue: QUEUE, adapters: [inventory], secrets: { keys: TENANT_KEYS } }));
});

after(async () => h?.close());

const fn = (name: string) => ({ name, type: 'custom', operation: `inventory.${name}`, metadata: { worker: QUEUE, team: 'stock' } });

test('a custom function gets the evaluated arguments as its input and its context from the header', async () => {
  seen.length = 0;
  const { result, workflowId } = await h.run(
    {
      id: 'reserving',
      start: 'Reserve',
      functions: [fn('reserve')],
      states: [{ name: 'Reserve', type: 'operation', actions: [{ name: 'take', functionRef: { refName: 'reserve', arguments: { sku: '${ .sku }', count: 2 } } }], end: true }],
    },
    { sku: 'A-1' },
  );
  assert.deepEqual(await result, { sku: 'A-1', reserved: 2 });
  assert.equal(seen.length, 1);
  assert.deepEqual(seen[0].args, { sku: 'A-1', count: 2 });
  assert.equal(seen[0].ctx.state, 'Reserve');
  assert.equal(seen[0].ctx.action, 'take');
  assert.equal(seen[0].ctx.workflow?.id, workflowId);
  assert.equal(seen[0].ctx.workflow?.definitionId, 'reserving');
  assert.deepEqual(seen[0].ctx.function, { name: 'reserve', type: 'custom', operation: 'inventory.reserve', metadata: { worker: QUEUE, team: 'stock' } });
  assert.equal(seen[0].ctx.taskQueue, QUEUE);
  assert.equal(seen[0].ctx.activityType, 'inventory.reserve');

  // On the wire: the input is the arguments alone (what a Go/Java/Python activity receives); the context is the header.
  const events = (await h.client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
  const scheduled = events.find((e) => e.activityTaskScheduledEventAttributes)!.activityTaskScheduledEventAttributes!;
  assert.deepEqual(scheduled.input?.payloads?.map((p) => defaultPayloadConverter.fromPayload(p as never)), [{ sku: 'A-1', count: 2 }]);
  const header = defaultPayloadConverter.fromPayload<Record<string, unknown>>(scheduled.header!.fields![CALL_HEADER] as never);
  assert.equal(header.state, 'Reserve');
  assert.equal(header.action, 'take');
  assert.deepEqual(header.workflow, { id: workflowId, instanceId: (await h.client.workflow.getHandle(workflowId).describe()).runId, definitionId: 'reserving' });
});

test('a secret argument that also reads the state data gets that data ($SECRETS.keys[.tenant])', async () => {
  const { result, workflowId } = await h.run(
    {
      id: 'tenantkeys',
      start: 'Check',
      secrets: ['keys'],
      functions: [fn('tenantKey')],
      states: [{ name: 'Check', type: 'operation', actions: [{ functionRef: { refName: 'tenantKey', arguments: { tenant: '${ .tenant }', key: '${ $SECRETS.keys[.tenant] }' } } }], end: true }],
    },
    { tenant: 'globex' },
  );
  assert.deepEqual(await result, { tenant: 'globex', keyIsTenants: true });
  const history = historyText(await h.client.workflow.getHandle(workflowId).fetchHistory());
  for (const key of Object.values(TENANT_KEYS)) assert.ok(!history.includes(key), 'no tenant key in the history');
  assert.ok(history.includes('$SECRETS.keys[.tenant]'), 'the expression travels (in the header)');
});

test("an adapter's error code is what onErrors matches; unhandled, the failure names state, action and function", async () => {
  const handled = await h.run({
    id: 'stockout',
    start: 'Reserve',
    errors: [{ name: 'NoStock', code: 'OutOfStock' }, { name: 'Closed', code: 'WarehouseClosed' }],
    functions: [fn('outOfStock'), fn('plainError')],
    states: [
      { name: 'Reserve', type: 'operation', actions: [{ functionRef: { refName: 'outOfStock', arguments: { sku: 'B-2' } } }], onErrors: [{ errorRef: 'NoStock', transition: 'Later' }], end: true },
      { name: 'Later', type: 'operation', actions: [{ functionRef: 'plainError' }], onErrors: [{ errorRef: 'Closed', end: true }], end: true },
    ],
  });
  assert.deepEqual(await handled.result, {});

  const unhandled = await h.run({
    id: 'stockoutunhandled',
    start: 'Reserve',
    functions: [fn('outOfStock')],
    states: [{ name: 'Reserve', type: 'operation', actions: [{ name: 'grab', functionRef: { refName: 'outOfStock', arguments: { sku: 'C-3' } } }], end: true }],
  });
  await assert.rejects(unhandled.result, (e: unknown) => {
    assert.match(failureText(e), /state "Reserve", action "grab", function "outOfStock" failed: no C-3 left \(code OutOfStock\)/);
    return true;
  });
  // The activity's own failure (what the Web UI shows for the call) names the site too.
  const history = historyText(await h.client.workflow.getHandle(unhandled.workflowId).fetchHistory());
  assert.match(history, /state \\"Reserve\\", action \\"grab\\", function \\"outOfStock\\": no C-3 left/);
});

test('network failures get codes a definition can tell apart', () => {
  const wrapped = (code: string) => Object.assign(new TypeError('fetch failed'), { cause: Object.assign(new Error(`getaddrinfo ${code} x.invalid`), { code }) });
  assert.equal(networkFailure(wrapped('ECONNREFUSED')).code, ErrorCodes.ConnectionRefused);
  assert.equal(networkFailure(wrapped('ECONNRESET')).code, ErrorCodes.ConnectionReset);
  assert.equal(networkFailure(wrapped('UND_ERR_SOCKET')).code, ErrorCodes.ConnectionReset);
  assert.equal(networkFailure(wrapped('ENOTFOUND')).code, ErrorCodes.HostNotFound);
  assert.equal(networkFailure(wrapped('EAI_AGAIN')).code, ErrorCodes.HostNotFound);
  assert.equal(networkFailure(wrapped('ETIMEDOUT')).code, ErrorCodes.ConnectionTimeout);
  assert.equal(networkFailure(wrapped('UND_ERR_CONNECT_TIMEOUT')).code, ErrorCodes.ConnectionTimeout);
  assert.equal(networkFailure(wrapped('EPROTO')).code, ErrorCodes.ConnectionError);
  assert.equal(networkFailure(wrapped('ENOTFOUND')).message, 'getaddrinfo ENOTFOUND x.invalid');
});

test('defineAdapter refuses what cannot be served', () => {
  assert.throws(() => defineAdapter({ name: 'a.b', activities: { x: () => 1 } }), /without dots or spaces/);
  assert.throws(() => defineAdapter({ name: 'a', activities: {} }), /no activities/);
  assert.throws(() => defineAdapter({ name: 'a', activities: { x: 1 as never } }), /"x" is not a function/);
  assert.deepEqual(Object.keys(inventory.activityTypes), ['inventory.reserve', 'inventory.tenantKey', 'inventory.outOfStock', 'inventory.plainError']);
});

test('built-in adapters use only the public SDK (src/adapter-sdk, published as swflow/adapter)', () => {
  const root = join(PROJECT_ROOT, 'adapters');
  const files = readdirSync(root, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
  assert.ok(files.length > 0);
  for (const f of files) {
    const text = readFileSync(join(root, f), 'utf8');
    for (const m of text.matchAll(/from '([^']+)'/g)) {
      const spec = m[1];
      if (!spec.startsWith('.')) continue;
      const target = resolve(dirname(join(root, f)), spec);
      const inside = target.startsWith(join(root, f.split('/')[0]));
      assert.ok(inside || target === join(PROJECT_ROOT, 'src', 'adapter-sdk'), `adapters/${f} imports ${spec}: only its own files and the SDK's entry (src/adapter-sdk) are allowed`);
    }
  }
});
