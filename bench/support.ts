/**
 * Small helpers shared by the benches: command-line options, quantiles, child processes (their
 * readiness and CPU time), history spans.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import type { Client } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';

/** When a history event happened, in ms since the epoch. */
export const eventTimeMs = (e: temporal.api.history.v1.IHistoryEvent): number => Number(e.eventTime!.seconds) * 1000 + (e.eventTime!.nanos ?? 0) / 1e6;

/** A webpack logger that says only errors (the benches' own bundles). */
export const quietBundlerLogger = { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error: console.error } as never;

/** `--name value` from the command line, else `dflt`. */
export function option(name: string, dflt: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : dflt;
}

export function quantile(xs: number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
}

export const mean = (xs: number[]): number => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);
export const round = (x: number, digits = 1): number => +x.toFixed(digits);

/** Waits for a line matching `re` on a child's stdout/stderr (its readiness). */
export function waitFor(child: ChildProcess, re: RegExp, what: string, ms = 120_000): Promise<void> {
  return new Promise((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => reject(new Error(`${what} not ready within ${ms / 1000} s:\n${seen.slice(-3000)}`)), ms);
    const on = (chunk: Buffer) => {
      seen += chunk.toString();
      if (re.test(seen)) {
        clearTimeout(timer);
        child.stdout?.off('data', on);
        child.stderr?.off('data', on);
        resolve();
      }
    };
    child.stdout?.on('data', on);
    child.stderr?.on('data', on);
    child.once('exit', (code) => reject(new Error(`${what} exited (${code}):\n${seen.slice(-3000)}`)));
  });
}

/** CPU time (user + system, all threads) a process has used so far, in ms (Linux /proc). */
export function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime, stime in clock ticks (USER_HZ = 100)
}

/** A field of /proc/<pid>/status in kB (VmHWM, VmRSS...), as MB. */
function statusMb(pid: number, field: string): number {
  const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Math.round(Number(m[1]) / 1024) : 0;
}

/** Peak resident set size of a process so far (VmHWM), in MB (Linux /proc). */
export const peakRssMb = (pid: number): number => statusMb(pid, 'VmHWM');

/** Current resident set size of a process (VmRSS), in MB (Linux /proc). */
export const rssMb = (pid: number): number => statusMb(pid, 'VmRSS');

/** Stops a child process: SIGINT (a worker's graceful shutdown), SIGKILL after 15 s. */
export async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const done = new Promise((r) => child.once('exit', r));
  child.kill('SIGINT');
  const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  await done;
  clearTimeout(timer);
}

/** The local HTTP service the peer benches call: `GET /echo/<i>` → `{"ok":true,"i":<i>}`, in its own process. */
export function startEchoService(port: number): ChildProcess {
  const code = `require('node:http').createServer((req, res) => {
    const i = Number(req.url.split('/').pop());
    const body = JSON.stringify({ ok: true, i });
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  }).listen(${port}, '127.0.0.1', () => console.log('ready'));`;
  return spawn(process.execPath, ['-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
}

/** Workflow tasks of a run and the mean time the worker held each (started → completed, from its history). */
export async function workflowTasks(client: Client, workflowId: string): Promise<{ count: number; spans: number[] }> {
  const spans: number[] = [];
  let started = 0;
  for (const e of (await client.workflow.getHandle(workflowId).fetchHistory()).events ?? []) {
    const at = eventTimeMs(e);
    if (e.workflowTaskStartedEventAttributes) started = at;
    if (e.workflowTaskCompletedEventAttributes) spans.push(at - started);
  }
  return { count: spans.length, spans };
}

/**
 * The peer benches' documents (bench/peer/) with the service URL and loop count filled in, in
 * `dir`, plus the `-local` variants of the call documents (every call `swflow.local: true`) and
 * the `-writes` variants of the ten-call documents (POSTs: zigflow.yaml's `tenposts`).
 */
export function writePeerDocuments(dir: string, service: string, loop: number): { zigflow: string; swflow: string } {
  const fill = (text: string) => text.replaceAll('{{SERVICE}}', service).replaceAll('{{LOOP}}', String(loop));
  const src = join(__dirname, 'peer');
  writeFileSync(join(dir, 'zigflow.yaml'), fill(readFileSync(join(src, 'zigflow.yaml'), 'utf8')));
  mkdirSync(join(dir, 'swflow'));
  for (const f of readdirSync(join(src, 'swflow'))) writeFileSync(join(dir, 'swflow', f), fill(readFileSync(join(src, 'swflow', f), 'utf8')));
  // The `-local` variants of the call documents: every call marked `swflow.local: true`.
  for (const f of ['ten-calls.sw.yaml', 'one-call.sw.yaml']) {
    const doc = parseYaml(fill(readFileSync(join(src, 'swflow', f), 'utf8')));
    doc.document.name += '-local';
    for (const entry of doc.do) for (const task of Object.values(entry) as Record<string, unknown>[]) task.metadata = { 'swflow.local': true };
    writeFileSync(join(dir, 'swflow', f.replace('.sw.yaml', '-local.sw.yaml')), stringifyYaml(doc));
  }
  for (const f of ['ten-calls-08.sw.json', 'one-call-08.sw.json']) {
    const doc = JSON.parse(fill(readFileSync(join(src, 'swflow', f), 'utf8')));
    doc.id += '-local';
    for (const fn of doc.functions) fn.metadata = { ...fn.metadata, 'swflow.local': 'true' };
    writeFileSync(join(dir, 'swflow', f.replace('.sw.json', '-local.sw.json')), JSON.stringify(doc, null, 2));
  }
  // The `-writes` variants of the ten-call documents: the same calls as POSTs (writes stay activities).
  {
    const doc = parseYaml(fill(readFileSync(join(src, 'swflow', 'ten-calls.sw.yaml'), 'utf8')));
    doc.document.name += '-writes';
    doc.do.forEach((entry: Record<string, { with: Record<string, unknown> }>, i: number) => {
      for (const task of Object.values(entry)) task.with = { ...task.with, method: 'post', body: { i: i + 1 } };
    });
    writeFileSync(join(dir, 'swflow', 'ten-calls-writes.sw.yaml'), stringifyYaml(doc));
    const doc08 = JSON.parse(fill(readFileSync(join(src, 'swflow', 'ten-calls-08.sw.json'), 'utf8')));
    doc08.id += '-writes';
    doc08.functions = [{ name: 'echoPost', operation: 'file://echo-api.json#echoPost' }];
    for (const action of doc08.states[0].actions) action.functionRef.refName = 'echoPost';
    writeFileSync(join(dir, 'swflow', 'ten-calls-08-writes.sw.json'), JSON.stringify(doc08, null, 2));
  }
  return { zigflow: join(dir, 'zigflow.yaml'), swflow: join(dir, 'swflow') };
}

/** The zigflow side a swflow side of the peer benches is compared with: `-writes` sides with `zigflow-writes` (the same POSTs), others with `zigflow`. */
export function zigflowSideOf(name: string): string {
  return name.endsWith('-writes') ? 'zigflow-writes' : 'zigflow';
}
