/**
 * The expression error: what every failing jq evaluation is, in Node and in the workflow
 * sandbox. One family: {@link ExpressionError} (an expression that jq could not compile or
 * that failed at run time), {@link JqEngineError} (the engine itself failed, before the failure
 * is attributed to an expression), and the interpreter's `SwExpressionError`
 * (src/workflow/expressions.ts: the same, at a site of a workflow). SANDBOX-SAFE.
 */
import { errorClass, SwflowError } from '../common/errors';

/** 'syntax' when jq could not compile the expression (or it uses something unknown), else 'runtime'. */
export type ExpressionErrorKind = 'syntax' | 'runtime';

/** A failing expression: `expression` as written, `jqMessage` jq's own message. */
export class ExpressionError extends SwflowError {
  static {
    errorClass(this, 'ExpressionError');
  }

  constructor(
    public expression: string,
    public jqMessage: string,
    public kind: ExpressionErrorKind = 'runtime',
    /** The whole message, for a subclass that says more (where it failed); default: the expression and jq's message. */
    message = `expression ${JSON.stringify(expression)} failed: ${jqMessage}`,
  ) {
    super(message);
  }
}

/**
 * The engine itself failed (a trap: stack overflow, out of memory...; the instance was
 * replaced). It ran a whole program, so it names no expression: `evaluateExpression` attributes
 * it to the expression it was evaluating (src/expr/index.ts, `runCompiled`).
 */
export class JqEngineError extends SwflowError {
  static {
    errorClass(this, 'JqEngineError');
  }
}
