/**
 * The 0.8 "Workflow Data Input" rule: the initial data input "must be a valid JSON object"; no input
 * means `{}`. Pure (no imports): used by the interpreter (sandbox) and by `swflow run` to refuse early.
 */

/** A short description of a JSON value for messages: its kind and its first characters. */
export function describeJson(value: unknown): string {
  const kind = value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value === 'object' ? 'an object' : `a ${typeof value}`;
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return `${kind} (${text.length > 80 ? `${text.slice(0, 80)}…` : text})`;
}

/**
 * Why `input` cannot be a 0.8-family workflow data input, or undefined when it can (an object, or
 * no input at all: `null`/`undefined`, which stand for `{}`).
 */
export function dataInputProblem(input: unknown): string | undefined {
  if (input === undefined || input === null) return undefined;
  if (typeof input === 'object' && !Array.isArray(input)) return undefined;
  return `the workflow data input must be a JSON object (spec "Workflow Data Input"); given ${describeJson(input)}`;
}
