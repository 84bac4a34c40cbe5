/**
 * `call: http` (activity `sw.http`, adapters/http): a literal endpoint's URI template expanded
 * from the task's input, the endpoint's authentication policy resolved; summarized as
 * `<METHOD> <uri>`; a call with a safe method only reads (local-reads).
 */
import type { Json } from '../../../../common/model';
import { HTTP_CALL_ACTIVITY } from '../../../../common/call-kinds';
import { isSafeMethod } from '../../../../common/calls';
import { WorkflowError } from '../../errors';
import { expandUriTemplate, UriTemplateError } from '../../uri-template';
import { endpointOf, type CallKind } from './activity';

export const HTTP_CALL: CallKind = {
  type: 'http',
  activity: HTTP_CALL_ACTIVITY,
  local: true,
  prepare({ w, written, input, at }, resolveAuthentication) {
    const e = endpointOf(w.endpoint);
    // An endpoint written with an expression was evaluated as one: only a literal is a URI template.
    const literal = endpointOf(written.endpoint)?.uri;
    if (e?.uri !== undefined && literal !== undefined && !literal.includes('${')) {
      try {
        e.uri = expandUriTemplate(e.uri, input);
      } catch (err) {
        if (err instanceof UriTemplateError) throw WorkflowError.standard('expression', at.reference, err.message);
        throw err;
      }
    }
    if (!e) return undefined;
    w.endpoint = e as Json;
    return resolveAuthentication(e);
  },
  target: ({ w }) => `${String(w.method ?? 'get').toUpperCase()} ${endpointOf(w.endpoint)?.uri ?? ''}`,
  reads: ({ w }) => isSafeMethod(w.method),
};
