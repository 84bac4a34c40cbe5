/**
 * Test workflows for src/expr inside the real Temporal sandbox (bundled by webpack).
 */
import { proxySinks, sleep, workflowInfo, type Sinks } from '@temporalio/workflow';
import type { Json } from '../../src/common/model';
import {
  evaluateCondition,
  evaluateExpression,
  evaluateTemplate,
  ExpressionError,
  expressionsReady,
  initExpressions,
  type ExprScope,
} from '../../src/expr';

export interface ExprSinks extends Sinks {
  expr: { record(result: Json): void };
}
const sinks = proxySinks<ExprSinks>();

export interface ExprWorkflowResult {
  readyAtStart: boolean;
  results: Json[];
  nowBefore: Json;
  nowAfter: Json;
  dateNowAfter: number;
  error: { name: string; expression: string; jqMessage: string } | null;
  envHidden: Json;
}

export async function exprWorkflow(data: Json): Promise<ExprWorkflowResult> {
  const readyAtStart = expressionsReady();
  await initExpressions(); // a no-op when already loaded
  const info = workflowInfo();
  const scope: ExprScope = {
    constants: { AGE: { MIN_ADULT: 18 } },
    workflow: { id: info.workflowId, instanceId: info.runId, name: 'test' },
    variables: { person: { name: 'Ann' } },
    functions: { isAdult: '.applicant | .age >= $CONST.AGE.MIN_ADULT', 'Increment Count Function': '${ .count + 1 }' },
  };
  const results: Json[] = [
    evaluateExpression('${ .applicant.name }', data, scope),
    evaluateExpression('${ [.items[] | select(. > 2)] | map(. * 10) }', data, scope),
    evaluateCondition('${ fn:isAdult }', data, scope),
    evaluateExpression('${ fn:Increment Count Function }', data, scope),
    evaluateTemplate({ a: '${ $person.name }', b: ['${ .count }', 'lit', '${ $WORKFLOW.name }'], c: 'n=${ .count + 1 }' }, data, scope),
    evaluateExpression('${ [.items[] | tostring] | join(",") | ascii_upcase | test("1") }', data, scope),
  ];
  const nowBefore = evaluateExpression('${ now }', null, scope);
  await sleep(1500);
  const nowAfter = evaluateExpression('${ now | floor }', null, scope);
  const envHidden = evaluateExpression('${ [$ENV, env] }', null, scope);
  let error: ExprWorkflowResult['error'] = null;
  try {
    evaluateExpression('${ .count.x }', data, scope);
  } catch (e) {
    const x = e as ExpressionError;
    error = { name: x.name, expression: x.expression, jqMessage: x.jqMessage };
  }
  const result = { readyAtStart, results, nowBefore, nowAfter, dateNowAfter: Date.now(), error, envHidden };
  // Recorded on the original run AND on replay (callDuringReplay), so the test can compare.
  sinks.expr.record(result as unknown as Json);
  return result;
}
