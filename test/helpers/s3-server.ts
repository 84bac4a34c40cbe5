/**
 * A real S3-compatible server for tests: moto's server (PyPI `moto[server]`), installed on first
 * use into a virtualenv cached as `$SWFLOW_CACHE/moto-<version>` (about a minute here; SeaweedFS
 * from the Go module proxy took 15 minutes to build on this 2-core machine, though the stores pass
 * against it too). One server per test file on a free loopback port. It starts open, an IAM user with an access key and an
 * S3 policy is created, then moto's authentication is switched on: from there a request signed
 * with a wrong secret is refused (403), as by AWS.
 *
 *   const s3 = await startS3Server();
 *   await s3.createBucket('payloads');
 *   s3.url('payloads', 'prefix')  // s3://payloads/prefix?endpoint=http://127.0.0.1:<port>&region=us-east-1&forcePathStyle=true
 *   // credentials: s3.env (AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY)
 *   await s3.close();
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { cacheDir } from '../../src/platform/paths';
import { freePort } from './ports';

const run = promisify(execFile);

export const MOTO_VERSION = '5.2.5';

export interface TestS3Server {
  endpoint: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** The credentials as the AWS SDK's default chain reads them. */
  env: { AWS_ACCESS_KEY_ID: string; AWS_SECRET_ACCESS_KEY: string };
  /** An `s3://` payload store URL for `bucket`/`prefix` on this server. */
  url(bucket: string, prefix?: string): string;
  createBucket(name: string): Promise<void>;
  /** The last lines the server wrote (for a failure's message). */
  output(): string;
  close(): Promise<void>;
}

/** The virtualenv's python with moto installed: cached, else installed now (`log` says so). */
export async function motoPython(log: (m: string) => void = () => {}): Promise<string> {
  const venv = join(cacheDir(), `moto-${MOTO_VERSION}`);
  const python = join(venv, 'bin', 'python');
  if (existsSync(python)) return python;
  mkdirSync(cacheDir(), { recursive: true });
  const started = Date.now();
  log(`installing moto[server]==${MOTO_VERSION} from PyPI into ${venv}...`);
  // Built beside and renamed into place (atomic: test files installing at once each put a whole
  // venv); only `bin/python -m …` is used, which works from the renamed folder.
  const tmp = `${venv}.${process.pid}.tmp`;
  try {
    await run('python3', ['-m', 'venv', tmp], { timeout: 120_000 });
    await run(join(tmp, 'bin', 'python'), ['-m', 'pip', 'install', '-q', '--disable-pip-version-check', `moto[server]==${MOTO_VERSION}`], { maxBuffer: 16 * 1024 * 1024, timeout: 600_000 });
    if (existsSync(python)) rmSync(tmp, { recursive: true, force: true });
    else renameSync(tmp, venv);
  } catch (err) {
    rmSync(tmp, { recursive: true, force: true });
    const e = err as { stderr?: string; stdout?: string; message: string };
    throw new Error(`installing moto[server]==${MOTO_VERSION} (python3 -m venv + pip) failed: ${(e.stderr || e.stdout || e.message).trim().slice(-2000)}`);
  }
  log(`installed moto in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  return python;
}

// Run by the venv's python against the open server: an IAM user allowed s3:*, and its access key.
const SETUP_IAM = `
import json, sys, boto3
iam = boto3.client('iam', endpoint_url=sys.argv[1], region_name='us-east-1', aws_access_key_id='setup', aws_secret_access_key='setup')
iam.create_user(UserName='swflow')
iam.put_user_policy(UserName='swflow', PolicyName='s3', PolicyDocument=json.dumps({'Version': '2012-10-17', 'Statement': [{'Effect': 'Allow', 'Action': 's3:*', 'Resource': '*'}]}))
k = iam.create_access_key(UserName='swflow')['AccessKey']
print(json.dumps({'id': k['AccessKeyId'], 'secret': k['SecretAccessKey']}))
`;

export async function startS3Server(opts: { log?: (m: string) => void; timeoutMs?: number } = {}): Promise<TestS3Server> {
  const python = await motoPython(opts.log);
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(python, opts.timeoutMs ?? 60_000);
    } catch (err) {
      // A port taken by another test file's server between choosing and binding it: another port.
      if (attempt >= 3 || !/address already in use/i.test((err as Error).message)) throw err;
    }
  }
}

async function startOnce(python: string, timeoutMs: number): Promise<TestS3Server> {
  const port = await freePort();
  const endpoint = `http://127.0.0.1:${port}`;
  const region = 'us-east-1';
  let output = '';
  const child: ChildProcess = spawn(python, ['-m', 'moto.server', '-H', '127.0.0.1', '-p', String(port)], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, MOTO_ALLOW_NONEXISTENT_REGION: 'true' } });
  const keep = (c: Buffer) => (output = (output + c).slice(-8000));
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const running = () => child.exitCode === null && child.signalCode === null;
  const close = async () => {
    if (running()) {
      child.kill('SIGTERM');
      const late = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(late);
    }
  };
  try {
    const deadline = Date.now() + timeoutMs;
    while (!(await answers(port))) {
      if (!running()) throw new Error(`moto's server exited before serving on ${endpoint}:\n${output}`);
      if (Date.now() > deadline) throw new Error(`moto's server did not serve on ${endpoint} within ${timeoutMs} ms:\n${output}`);
      await sleep(200);
    }
    const { stdout } = await run(python, ['-c', SETUP_IAM, endpoint], { timeout: 60_000 });
    const key = JSON.parse(stdout.trim().split('\n').pop()!) as { id: string; secret: string };
    // Authentication on from the next request: every request must be signed with a known key.
    const res = await fetch(`${endpoint}/moto-api/reset-auth`, { method: 'POST', body: '0' });
    if (!res.ok) throw new Error(`moto's /moto-api/reset-auth answered ${res.status}: ${await res.text()}`);
    const client = new S3Client({ endpoint, region, forcePathStyle: true, credentials: { accessKeyId: key.id, secretAccessKey: key.secret }, maxAttempts: 1 });
    return {
      endpoint,
      region,
      accessKeyId: key.id,
      secretAccessKey: key.secret,
      env: { AWS_ACCESS_KEY_ID: key.id, AWS_SECRET_ACCESS_KEY: key.secret },
      url: (bucket, prefix = '') => `s3://${bucket}/${prefix}?endpoint=${encodeURIComponent(endpoint)}&region=${region}&forcePathStyle=true`,
      createBucket: async (name) => {
        await client.send(new CreateBucketCommand({ Bucket: name }));
      },
      output: () => output,
      close: async () => {
        client.destroy();
        await close();
      },
    };
  } catch (err) {
    await close();
    throw err;
  }
}

function answers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect(port, '127.0.0.1');
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}
