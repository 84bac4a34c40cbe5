/**
 * The mock service of `swflow test`: one dynamic activity that answers every function call
 * of a case from the case's rules (FORMAT.md, `functions:`), recording each call.
 *
 * It is registered (as the `default` activity, i.e. for every activity type) on each task
 * queue the definition's non-expression functions use.
 */
import { ApplicationFailure } from '@temporalio/common';
import type { FunctionCall, ServiceErrorDetails } from '../common/contracts';
import { ADAPTER_TASK_QUEUE } from '../common/contracts';
import type { Definition, Json } from '../common/model';
import { isV1Definition } from '../common/model-v1';
import { v1Functions } from '../dsl/v1/functions';
import type { MockRule } from './case';
import type { RecordedCall } from './expect';

/** Failure type of a call no rule answers (non-retryable; it also fails the case). */
export const UNMOCKED_CALL_ERROR = 'swflow.test.UnmockedCall';

export interface MockServiceOptions {
  /** Evaluates a rule's `when` (jq) over the call's arguments. */
  evaluate: (expr: string, data: Json) => Promise<unknown> | unknown;
  /** Waits `ms` of workflow time (skipped under time skipping), or until `signal` is aborted. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Aborted when the case ends: a `delay` still going on stops (a call must not outlive its case). */
  signal?: AbortSignal;
  /**
   * Puts the call's `secretArguments` (JSON Pointer → expression over $SECRETS) back into its
   * arguments, as a real service adapter would; returns the complete arguments.
   */
  resolveSecretArguments?: (args: Json, secretArguments: Record<string, string>, call: FunctionCall) => Promise<Json> | Json;
}

export class MockService {
  /** Every call, in the order the service received them. */
  readonly calls: RecordedCall[] = [];
  /** Calls no rule answered, and rule evaluation problems: each fails the case. */
  readonly problems: string[] = [];
  private used = new Map<MockRule, number>();

  constructor(
    private readonly rules: Record<string, MockRule[]>,
    private readonly opts: MockServiceOptions,
  ) {}

  /** The dynamic activity: `activities: { default: mocks.activity }`. */
  readonly activity = async (call: FunctionCall): Promise<Json> => {
    return this.handle(call);
  };

  /** Records a call (its arguments with secrets resolved, as the service sees them). */
  async record(call: FunctionCall): Promise<RecordedCall> {
    let args: Json = call?.arguments ?? null;
    if (call?.secretArguments && Object.keys(call.secretArguments).length && this.opts.resolveSecretArguments) {
      args = await this.opts.resolveSecretArguments(args, call.secretArguments, call);
    }
    const record: RecordedCall = { function: call?.function?.name ?? '<unknown>', arguments: args, workflowId: call?.workflow?.id, state: call?.state };
    this.calls.push(record);
    return record;
  }

  async handle(call: FunctionCall): Promise<Json> {
    const record = await this.record(call);
    const name = record.function;
    const args = record.arguments;

    const rules = this.rules[name];
    if (!rules) {
      const msg = `call to ${name} (${JSON.stringify(args)}) has no mock: add \`functions: { ${JSON.stringify(name)}: [...] }\` to the case`;
      this.problems.push(msg);
      throw ApplicationFailure.create({ message: msg, type: UNMOCKED_CALL_ERROR, nonRetryable: true });
    }
    for (let i = 0; i < rules.length; i++) {
      const rule = rules[i];
      const used = this.used.get(rule) ?? 0;
      if (rule.times !== undefined && used >= rule.times) continue;
      if (rule.when !== undefined) {
        let holds: unknown;
        try {
          holds = await this.opts.evaluate(rule.when, args);
        } catch (err) {
          const msg = `functions.${name}[${i}].when ${JSON.stringify(rule.when)} could not be evaluated over ${JSON.stringify(args)}: ${(err as Error).message}`;
          this.problems.push(msg);
          throw ApplicationFailure.create({ message: msg, type: UNMOCKED_CALL_ERROR, nonRetryable: true });
        }
        if (!truthy(holds)) continue;
      }
      this.used.set(rule, used + 1);
      record.rule = i;
      if (rule.delayMs && this.opts.sleep) await this.opts.sleep(rule.delayMs, this.opts.signal);
      if (rule.error) {
        const details: ServiceErrorDetails = { code: rule.error.code, message: rule.error.message };
        throw ApplicationFailure.create({
          message: rule.error.message,
          type: rule.error.code,
          details: [details],
          nonRetryable: false,
        });
      }
      return rule.hasResult ? (rule.result ?? null) : null;
    }
    const msg = `no rule of functions.${name} answers the call with arguments ${JSON.stringify(args)}${
      rules.some((r) => r.times !== undefined) ? ' (rules with `times` may be used up)' : ''
    }`;
    this.problems.push(msg);
    throw ApplicationFailure.create({ message: msg, type: UNMOCKED_CALL_ERROR, nonRetryable: true });
  }
}

/** jq truthiness: everything but false and null. */
function truthy(v: unknown): boolean {
  return v !== false && v !== null && v !== undefined;
}

/**
 * The mockable functions of a definition, by name, with their queue and type: a 0.8-family
 * definition's `functions`; for a 1.0 document, its calls (`http`, `openapi`, a `use.functions`
 * name, an `<activity>:<version>@default`; see src/dsl/v1/functions.ts).
 */
function functionsOf(def: Definition): { name: string; type: string; worker?: string }[] {
  if (isV1Definition(def)) return v1Functions(def);
  return def.functions.map((f) => ({ name: f.name, type: f.type, worker: f.metadata?.worker }));
}

/** The task queues a definition's (and its subflows') mockable functions are served on. */
export function functionTaskQueues(defs: Definition[]): string[] {
  const queues = new Set<string>();
  for (const def of defs) {
    for (const f of functionsOf(def)) {
      if (f.type === 'expression') continue;
      queues.add(f.worker || ADAPTER_TASK_QUEUE);
    }
  }
  return [...queues];
}

/** Problems with the case's `functions` against the definitions (unknown or expression functions). */
export function mockProblems(rules: Record<string, MockRule[]>, defs: Definition[]): string[] {
  const problems: string[] = [];
  const byName = new Map<string, string>();
  for (const def of defs) for (const f of functionsOf(def)) byName.set(f.name, f.type);
  for (const name of Object.keys(rules)) {
    const type = byName.get(name);
    if (type === undefined) {
      problems.push(`functions.${name}: no function named ${JSON.stringify(name)} in the definition${defs.length > 1 ? ' or its subflows' : ''} (known: ${[...byName.keys()].join(', ') || 'none'})`);
    } else if (type === 'expression') {
      problems.push(`functions.${name}: expression functions are evaluated by the runtime and cannot be mocked`);
    }
  }
  return problems;
}
