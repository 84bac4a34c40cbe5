/**
 * The URI templates of 1.0 endpoints (spec "URI Template"): only RFC 6570 simple string
 * expansion, `{name}` replaced by the top-level property `name` of the task's input, verbatim
 * (`{pet.id}` is the property "pet.id"), percent-encoded; a missing one is the empty string; a
 * non-scalar one is an expression error. (General RFC 6570 libraries expand objects and arrays
 * instead of refusing them, so this small subset is written here.) Pure.
 */
import { errorClass, SwflowError } from '../../common/errors';
import type { Json } from '../../common/model';

/** A variable the template cannot take (an object or an array): an expression error of the call. */
export class UriTemplateError extends SwflowError {
  static {
    errorClass(this, 'UriTemplateError');
  }
}

export function expandUriTemplate(template: string, vars: Json): string {
  const scope = vars && typeof vars === 'object' && !Array.isArray(vars) ? vars : {};
  return template.replace(/\{([^{}]+)\}/g, (_m, name: string) => {
    const v = (scope as Record<string, Json>)[name];
    if (v === undefined || v === null) return '';
    if (typeof v === 'object') throw new UriTemplateError(`URI template variable {${name}} is ${Array.isArray(v) ? 'an array' : 'an object'}; only strings, numbers and booleans can be interpolated`);
    return encodeURIComponent(String(v));
  });
}
