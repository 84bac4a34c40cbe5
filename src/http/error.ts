/**
 * The refusal of a request by one of swflow's HTTP servers (the gateway, src/gateway/server.ts;
 * the run page, src/ui/server.ts): thrown where the request is found wrong, answered by the
 * server's handler with the status, `{ "error": message }` and the headers. Node side.
 */
import { errorClass, SwflowError } from '../common/errors';

export class HttpError extends SwflowError {
  static {
    errorClass(this, 'HttpError');
  }

  constructor(
    readonly status: number,
    message: string,
    /** Headers the answer carries (e.g. `www-authenticate` with a 401). */
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}
