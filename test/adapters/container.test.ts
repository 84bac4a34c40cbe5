/**
 * 1.0 `run.container` end to end: the interpreter on a real dev server, the opt-in process worker
 * running the image with a real container engine (podman). The machine reaches no image
 * registry, so the image is made here: a busybox root filesystem, `podman import`ed.
 *
 * This sandbox lacks CAP_SYS_RESOURCE and mounts cgroups v1 and v2 side by side: podman's default
 * OCI runtime (crun) refuses hybrid cgroups, and both runtimes fail to raise the rlimits podman
 * asks for by default; runc with lowered ulimits works. Those options are the engine's `runArgs`
 * (SWFLOW_CONTAINER_RUN_ARGS for `swflow processes`), not swflow's.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WorkflowFailedError } from '@temporalio/client';
import type { ApplicationFailure } from '@temporalio/common';
import type { Worker } from '@temporalio/worker';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { INTERPRETER_TASK_QUEUE, type StartOptions } from '../../src/common/contracts';
import type { Json } from '../../src/common/model';
import { containerCommandLine } from '../../adapters/process/process';
import { createInterpreterWorker } from '../../src/worker/interpreter-worker';
import { createProcessWorker } from '../../src/worker/process-worker';
import { stopWorkers } from '../../src/worker/stop';
import { startDevEnv } from '../helpers/temporal';
import { loadAny, saveHistory, sharedBundle } from '../workflow/helpers';

const IMAGE = 'localhost/swflow-busybox:test';
const RUN_ARGS = ['--runtime', 'runc', '--ulimit', 'nofile=1024:1024', '--ulimit', 'nproc=1024:1024'];

let env: TestWorkflowEnvironment;
let workers: Worker[] = [];
let runs: Promise<void>[] = [];
let n = 0;
let volume = '';

function podman(...args: string[]): string {
  return execFileSync('podman', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

before(async () => {
  try {
    podman('image', 'exists', IMAGE);
  } catch {
    const root = mkdtempSync(join(tmpdir(), 'swflow-rootfs-'));
    mkdirSync(join(root, 'bin'));
    mkdirSync(join(root, 'tmp'));
    copyFileSync('/bin/busybox', join(root, 'bin', 'busybox'));
    for (const cmd of ['sh', 'echo', 'cat', 'env', 'ls', 'tr', 'wc']) symlinkSync('busybox', join(root, 'bin', cmd));
    execFileSync('tar', ['-C', root, '-cf', `${root}.tar`, '.']);
    podman('import', '--change', 'CMD ["/bin/echo", "default cmd"]', `${root}.tar`, IMAGE);
  }
  volume = mkdtempSync(join(tmpdir(), 'swflow-volume-'));
  env = await startDevEnv();
  workers = [
    await createInterpreterWorker({ connection: env.nativeConnection, definitions: [], workflowBundle: await sharedBundle() }),
    await createProcessWorker({ connection: env.nativeConnection, containerRuntime: { command: 'podman', runArgs: RUN_ARGS } }),
  ];
  runs = workers.map((w) => w.run());
});

after(async () => {
  await stopWorkers(workers, runs);
  await env?.teardown();
});

const docOf = (name: string, tasks: unknown[]) => ({ document: { dsl: '1.0.3', namespace: 'containers', name, version: '0.1.0' }, do: tasks });

async function start(doc: unknown, input: Json = {}) {
  const definition = await loadAny(doc);
  const opts: StartOptions = { definition };
  return env.client.workflow.start(definition.id, { taskQueue: INTERPRETER_TASK_QUEUE, workflowId: `container-${++n}`, args: [input, opts] });
}

test('container command lines: engine run options, then the image, then sh -c <command> sh <arguments…>', () => {
  const line = containerCommandLine(
    { kind: 'container', image: 'alpine', code: 'echo $1', arguments: ['a'], environment: { K: 'v' }, ports: { 8080: 80 }, volumes: { '/data': '/mnt' }, name: 'n1', cleanup: 'always', pullPolicy: 'never' },
    { command: 'docker', runArgs: ['--network=none'] },
  );
  assert.deepEqual(line, { file: 'docker', args: ['run', '-i', '--rm', '--name', 'n1', '--pull=never', '-p', '8080:80', '-v', '/data:/mnt', '-e', 'K=v', '--network=none', 'alpine', 'sh', '-c', 'echo $1', 'sh', 'a'] });
});

test('run.container: the image runs the command with stdin, arguments, environment and a volume; cleanup always removes it, never keeps it', async () => {
  const name = `swflow-kept-${Date.now()}`;
  execFileSync('sh', ['-c', `echo from the volume > ${join(volume, 'note.txt')}`]);
  const h = await start({
    ...docOf('hello', [
      { greet: { set: { message: 'Hello World' } } },
      {
        inContainer: {
          input: { from: '${ .message }' },
          run: {
            container: {
              image: IMAGE,
              stdin: '${ . }',
              command: 'input=$(cat); echo "STDIN was: $input"; echo "ARGS are $1 $2"; echo "GREETING=$GREETING"; cat /mnt/note.txt',
              arguments: ['Foo', 'Bar'],
              environment: { GREETING: '${ "hi " + . }' },
              volumes: { [volume]: '/mnt' },
              lifetime: { cleanup: 'always' },
            },
          },
          export: { as: '{ first: . }' },
        },
      },
      { defaultCmd: { run: { container: { image: IMAGE, name, lifetime: { cleanup: 'never' } }, return: 'all' } } },
    ]),
    output: { as: '$context + { last: . }' },
  });
  assert.deepEqual(await h.result(), {
    first: 'STDIN was: Hello World\nARGS are Foo Bar\nGREETING=hi Hello World\nfrom the volume\n',
    last: { code: 0, stdout: 'default cmd\n', stderr: '' },
  });
  await saveHistory(env.client, h.workflowId, 'interpreter-v1-run-container'); // replayed by test/workflow/replay.test.ts
  // The kept container is there (cleanup: never), and the removed one is not.
  const names = podman('ps', '-a', '--format', '{{.Names}}').split('\n');
  assert.ok(names.includes(name), `kept container ${name} in ${names.join(', ')}`);
  podman('rm', '-f', name);
  assert.ok(!names.some((x) => x.startsWith('hello-')), 'cleanup: always removed its container');
});

test('run.container: the command output; a non-zero exit is a runtime error with its stderr', async () => {
  const ok = await start(docOf('out', [{ c: { run: { container: { image: IMAGE, stdin: 'a b c', command: 'tr a-z A-Z', lifetime: { cleanup: 'always' } } } } }]));
  assert.equal(await ok.result(), 'A B C');
  const bad = await start(docOf('bad', [{ c: { run: { container: { image: IMAGE, command: 'echo broken >&2; exit 3', lifetime: { cleanup: 'always' } } } } }]));
  await assert.rejects(bad.result(), (err: unknown) => {
    assert.ok(err instanceof WorkflowFailedError);
    const p = (err.cause as ApplicationFailure).details![0] as Record<string, Json>;
    assert.match(String(p.type), /errors\/runtime$/);
    assert.match(String(p.detail), /exit code 3: broken/);
    return true;
  });
});
