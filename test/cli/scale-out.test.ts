/**
 * The parts of `swflow start` as separate processes, as they are scaled out: `swflow worker`,
 * `swflow adapters` and `swflow gateway` (spawned through bin/swflow.js) against one Temporal
 * server; a CloudEvent to the gateway runs the event-started example, whose REST call is served
 * by the adapters process.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import type { Server } from 'node:http';
import { join, resolve } from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { startGreetingService } from '../../examples/services/greeting-service';
import { startDevEnv } from '../helpers/temporal';
import { freePort } from '../helpers/ports';

const ROOT = resolve(__dirname, '..', '..');
let env: TestWorkflowEnvironment;
let service: Server;
const children: { name: string; child: ChildProcess; output: string }[] = [];

function swflow(name: string, args: string[]): Promise<void> {
  const child = spawn(process.execPath, [join(ROOT, 'bin', 'swflow.js'), ...args], {
    cwd: ROOT,
    env: { ...process.env, TEMPORAL_ADDRESS: env.address, TEMPORAL_NAMESPACE: 'default' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const entry = { name, child, output: '' };
  children.push(entry);
  child.stdout!.on('data', (d) => (entry.output += d));
  child.stderr!.on('data', (d) => (entry.output += d));
  return new Promise((resolve, reject) => {
    const timer = setInterval(() => {
      if (/serving task queue|listening on/.test(entry.output)) (clearInterval(timer), resolve());
      if (child.exitCode !== null) (clearInterval(timer), reject(new Error(`${name} exited: ${entry.output}`)));
    }, 100);
  });
}

let gatewayPort: number;

before(async () => {
  env = await startDevEnv();
  service = await startGreetingService();
  gatewayPort = await freePort();
  await Promise.all([
    swflow('worker', ['worker', '--definitions', 'examples']),
    swflow('adapters', ['adapters', '--definitions', 'examples']),
    swflow('gateway', ['gateway', '--definitions', 'examples', '--port', String(gatewayPort)]),
  ]);
});

after(async () => {
  for (const { child } of children) if (child.exitCode === null) child.kill('SIGKILL');
  await new Promise((r) => service?.close(r));
  await env?.teardown();
});

test('worker, adapters and gateway as separate processes run an event-started workflow with a REST call', async () => {
  const res = await fetch(`http://127.0.0.1:${gatewayPort}/`, {
    method: 'POST',
    headers: { 'ce-specversion': '1.0', 'ce-id': 'so-1', 'ce-type': 'greeting.requested', 'ce-source': 'swflow.examples', 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Barbara' }),
  });
  assert.equal(res.status, 202, await res.clone().text());
  const result = await env.client.workflow.getHandle('eventgreeting/swflow.examples/so-1').result();
  assert.deepEqual(result, { person: { name: 'Barbara' }, reply: { greeting: 'Welcome to Serverless Workflow, Barbara!' } });
});

test('each process stops cleanly on SIGINT', async () => {
  for (const { name, child, output } of children) {
    const exited = new Promise<number | null>((r) => child.once('exit', r));
    child.kill('SIGINT');
    assert.equal(await exited, 0, `${name}: ${output}`);
  }
});
