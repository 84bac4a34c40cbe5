/**
 * Stands in for src/expr/engine.ts in a workflow bundle (see replay-engines.test.ts): the real
 * engine, plus a sink call with every program and input that src/expr runs.
 * Sandbox code.
 */
import { proxySinks, type Sinks } from '@temporalio/workflow';

export interface JqTraceSinks extends Sinks {
  jqTrace: { record(program: string, inputJson: string, budget: number): void };
}

// The `.ts` extension keeps this request apart from the `src/expr/engine` the bundle redirects here.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const real = require('../../src/expr/engine.ts') as typeof import('../../src/expr/engine');
const sinks = proxySinks<JqTraceSinks>();

export const { checkJq, isEngineReady, JqEngineError, startEngine, runJq, jqRunCount, jqEngineStats } = real;

export function runJqCli(program: string, inputJson: string, budget = 0): ReturnType<typeof real.runJqCli> {
  sinks.jqTrace.record(program, inputJson, budget);
  return real.runJqCli(program, inputJson, budget);
}
