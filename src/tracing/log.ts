/**
 * Log lines of a swflow process: human-readable text (the default), or with `--log-format json`
 * / SWFLOW_LOG_FORMAT=json one JSON object per line (pino):
 *
 *   {"level":"info","time":"2026-11-25T02:00:00.000Z","name":"swflow-gateway","component":"swflow gateway",
 *    "msg":"event order.placed 1 → order-1 (started)","trace_id":"4bf9…","span_id":"00f0…"}
 *
 * `trace_id`/`span_id` are those of the span active when the line was written (tracing on,
 * src/tracing). The processes write their messages with console.log/info/warn/error: in JSON mode
 * those become pino lines (a `[swflow worker] ` prefix becomes `component`, a line that already is
 * a JSON object — the gateway's access log — is merged into the line); Temporal's runtime logger
 * ({@link temporalLogger}) writes its lines through the same logger, its metadata as fields.
 * Messages never carry event data or secrets (the callers' rule).
 */
import type { Logger } from 'pino';
import { activeSpanIds } from './context';

let current: Logger | undefined;

/** The process's JSON logger, when the format is json. */
export function jsonLogger(): Logger | undefined {
  return current;
}

/** A pino logger writing JSON lines to `destination` (default stdout), each with the active span's ids. */
export function createJsonLogger(name: string, destination?: NodeJS.WritableStream): Logger {
  // Loaded only in JSON mode.
  const pino = require('pino') as typeof import('pino');
  return pino.pino(
    {
      name,
      base: undefined,
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }), bindings: (b) => ({ name: b.name }) },
      mixin: () => activeSpanIds() ?? {},
    },
    destination ?? pino.destination({ fd: 1, sync: true }),
  );
}

/**
 * `text` (or unset): nothing changes. `json`: console output becomes JSON lines of the logger
 * `name` (see the header). Anything else is an error naming where it came from.
 */
export function useLogFormat(format: string | undefined, name: string): void {
  if (format === undefined || format === '' || format === 'text') return;
  if (format !== 'json') throw new Error(`--log-format / SWFLOW_LOG_FORMAT must be "text" or "json", not "${format}"`);
  if (current) return;
  const logger = createJsonLogger(name);
  current = logger;
  const write = (level: 'info' | 'warn' | 'error') => (...args: unknown[]) => logLine(logger, level, args);
  console.log = write('info');
  console.info = write('info');
  console.warn = write('warn');
  console.error = write('error');
}

/** One console call as one JSON line. */
export function logLine(logger: Logger, level: 'info' | 'warn' | 'error', args: unknown[]): void {
  const text = args.map((a) => (typeof a === 'string' ? a : a instanceof Error ? (a.stack ?? a.message) : safeJson(a))).join(' ');
  if (text.startsWith('{')) {
    try {
      const obj = JSON.parse(text) as Record<string, unknown>;
      if (obj && typeof obj === 'object' && !Array.isArray(obj)) {
        logger[level](obj);
        return;
      }
    } catch {
      // not JSON: a message
    }
  }
  const m = /^\[([^\]]+)\] ([\s\S]*)$/.exec(text);
  if (m) logger[level]({ component: m[1] }, m[2]);
  else logger[level](text);
}

function safeJson(v: unknown): string {
  try {
    return JSON.stringify(v);
  } catch {
    return String(v);
  }
}

/**
 * In JSON mode, a Temporal runtime logger writing through the JSON logger (for Runtime.install,
 * which takes one per process: src/metrics passes it when it installs the runtime, else
 * {@link installTemporalLogger}); undefined in text mode.
 */
export function temporalLogger(): import('@temporalio/worker').Logger | undefined {
  const logger = current;
  if (!logger) return undefined;
  const { DefaultLogger } = require('@temporalio/worker') as typeof import('@temporalio/worker');
  const levels = { TRACE: 'trace', DEBUG: 'debug', INFO: 'info', WARN: 'warn', ERROR: 'error' } as const;
  return new DefaultLogger('INFO', (entry) => logger[levels[entry.level]]({ component: 'temporal', ...(entry.meta ?? {}) }, entry.message));
}

/** Installs Temporal's runtime with the JSON logger (JSON mode; before any worker or connection). */
export function installTemporalLogger(): void {
  const logger = temporalLogger();
  if (!logger) return;
  const { Runtime } = require('@temporalio/worker') as typeof import('@temporalio/worker');
  Runtime.install({ logger });
}
