/**
 * Small helpers shared by the benches: command-line options, quantiles, child processes (their
 * readiness and CPU time), history spans.
 */
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { Client } from '@temporalio/client';

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

/** Peak resident set size of a process so far (VmHWM), in MB (Linux /proc). */
export function peakRssMb(pid: number): number {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Math.round(Number(m[1]) / 1024) : 0;
}

/** Workflow tasks of a run and the mean time the worker held each (started → completed, from its history). */
export async function workflowTasks(client: Client, workflowId: string): Promise<{ count: number; spans: number[] }> {
  const spans: number[] = [];
  let started = 0;
  for (const e of (await client.workflow.getHandle(workflowId).fetchHistory()).events ?? []) {
    const at = Number(e.eventTime!.seconds) * 1000 + (e.eventTime!.nanos ?? 0) / 1e6;
    if (e.workflowTaskStartedEventAttributes) started = at;
    if (e.workflowTaskCompletedEventAttributes) spans.push(at - started);
  }
  return { count: spans.length, spans };
}
