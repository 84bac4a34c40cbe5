/**
 * Workflow for bench/expr.ts: evaluates one kind of expression `n` times in a single
 * workflow task, so the host can time the task inside the real sandbox.
 */
import type { Json } from '../src/common/model';
import { evaluateExpression, evaluateTemplate, initExpressions, type ExprScope } from '../src/expr';
import { CASES } from './expr-cases';

export async function exprBenchWorkflow(kind: string, n: number): Promise<Json> {
  await initExpressions();
  const c = CASES.find((x) => x.name === kind);
  if (!c) throw new Error(`unknown case ${kind}`);
  let last: Json = null;
  for (let i = 0; i < n; i++) last = c.run(evaluateExpression, evaluateTemplate);
  return last;
}

export type { ExprScope };
