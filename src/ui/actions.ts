/**
 * The run page's actions on a run: cancel, suspend, resume, send an event, redrive. They change
 * runs, so they are off unless the page is started with the operator token (src/operations/token.ts),
 * and then each request must be a same-origin POST of JSON carrying `Authorization: Bearer <token>`:
 *
 *   POST /api/runs/<workflowId>/cancel|suspend|resume|redrive   { "runId"?: string }
 *   POST /api/runs/<workflowId>/events    { "type": string, "source"?, "subject"?, "id"?, "data"? }
 *
 * Each action is the one the CLI runs (src/operations/*); the answer is its result as JSON.
 */
import type { IncomingMessage } from 'node:http';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { Definition } from '../common/model';
import { EventProblem, mediaType } from '../gateway/cloudevents';
import { HttpError } from '../http/error';
import { cloudEvent, sendEvent } from '../operations/event';
import { redrive } from '../operations/redrive';
import { resumeRun, suspendRun } from '../operations/suspend';
import { bearerOf, OPERATOR_TOKEN_ENV, tokenMatches } from '../operations/token';

/** The action endpoints (the path's last segment). */
export const ACTION_PATH = /^\/api\/runs\/([^/]+)\/(cancel|suspend|resume|events|redrive)$/;
export type RunAction = 'cancel' | 'suspend' | 'resume' | 'events' | 'redrive';

export const ACTIONS_OFF = `the run page's actions are off: start it with an operator token (swflow ui --operator-token <token>, swflow start --operator-token <token>, or $${OPERATOR_TOKEN_ENV})`;

/** An event's data and attributes fit in this (the page's form; Temporal's payload limits apply after). */
const MAX_BODY_BYTES = 1024 * 1024;

export interface RunActionsOptions {
  client: Client;
  /** The operator token; undefined: actions off. */
  token?: string;
  /** What an event is routed by (Dispatcher; an event to one run needs none of them). */
  definitions: () => Promise<Definition[]>;
}

export interface ActionAnswer {
  status: number;
  body: unknown;
}

export function runActions(opts: RunActionsOptions): (req: IncomingMessage, workflowId: string, action: RunAction) => Promise<ActionAnswer> {
  const { client } = opts;
  return async (req, workflowId, action) => {
    if (!opts.token) throw new HttpError(404, ACTIONS_OFF);
    if (req.method !== 'POST') throw new HttpError(405, `${action} is a POST (JSON body, Authorization: Bearer <operator token>)`, { allow: 'POST' });
    refuseCrossOrigin(req);
    // Constant time; neither the expected nor the given token is ever part of an answer or a log.
    if (!tokenMatches(opts.token, bearerOf(req.headers.authorization))) throw new HttpError(403, `${action} needs the operator token: send Authorization: Bearer <token> (the token the page was started with)`);
    const body = await readJson(req);
    const runId = optionalString(body, 'runId');
    try {
      switch (action) {
        case 'cancel':
          await client.workflow.getHandle(workflowId, runId).cancel();
          return { status: 202, body: { workflowId, runId: runId ?? null, message: `cancellation requested: ${workflowId} runs its cancellation (compensation, if any) and ends cancelled` } };
        case 'suspend':
          return { status: 202, body: await suspendRun(client, { workflowId, runId }) };
        case 'resume':
          return { status: 202, body: await resumeRun(client, { workflowId, runId }) };
        case 'events': {
          const type = optionalString(body, 'type');
          if (!type) throw new HttpError(400, 'the event needs a type ("type": a string)');
          const e = cloudEvent({
            type,
            source: optionalString(body, 'source') || 'swflow.ui',
            subject: optionalString(body, 'subject'),
            id: optionalString(body, 'id'),
            data: body.data === null ? undefined : body.data,
            workflowId,
          });
          const r = await sendEvent(client, e, { definitions: opts.definitions });
          return { status: r.status, body: r };
        }
        case 'redrive':
          return { status: 200, body: await redrive(client, { workflowId, runId, identity: 'swflow run page' }) };
      }
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) throw new HttpError(404, `no running run with workflow id "${workflowId}"${runId ? ` and run id "${runId}"` : ''}: ${(err as Error).message}`);
      if (err instanceof EventProblem) throw new HttpError(err.status, err.message);
      // Redrive's refusals (nothing to redrive, a definition that does not fit...) say why: passed on as they are.
      if (action === 'redrive' && !(err instanceof HttpError)) throw new HttpError(422, (err as Error).message);
      throw err;
    }
  };
}

/**
 * A page elsewhere must not drive this one: a browser's request from another origin says so
 * (Sec-Fetch-Site, Origin) and is refused. Requests without these headers are not from a
 * browser's page (curl, scripts): the token alone decides for them.
 */
function refuseCrossOrigin(req: IncomingMessage): void {
  const site = req.headers['sec-fetch-site'];
  if (site && site !== 'same-origin' && site !== 'none') throw new HttpError(403, `a ${site} request is refused: the run page's actions are taken from the page itself`);
  const origin = req.headers.origin;
  if (origin === undefined) return;
  let host: string | undefined;
  try {
    host = new URL(origin).host;
  } catch {
    host = undefined;
  }
  if (!host || host !== (req.headers.host ?? '').toLowerCase()) throw new HttpError(403, `a request from origin ${origin} is refused: the run page's actions are taken from the page itself (${req.headers.host ?? 'no Host'})`);
}

/** The request's JSON object (an empty body: {}); only application/json, so a cross-site form cannot post one. */
async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  if (mediaType(req.headers['content-type']) !== 'application/json') throw new HttpError(415, 'the body must be JSON (Content-Type: application/json)');
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of req as AsyncIterable<Buffer>) {
    size += c.length;
    if (size > MAX_BODY_BYTES) throw new HttpError(413, `the request body is larger than ${MAX_BODY_BYTES} bytes`);
    chunks.push(c);
  }
  const text = Buffer.concat(chunks).toString('utf8').trim();
  if (!text) return {};
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (err) {
    throw new HttpError(400, `the body is not JSON: ${(err as Error).message}`);
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new HttpError(400, 'the body must be a JSON object');
  return v as Record<string, unknown>;
}

function optionalString(body: Record<string, unknown>, key: string): string | undefined {
  const v = body[key];
  if (v === undefined || v === null || v === '') return undefined;
  if (typeof v !== 'string') throw new HttpError(400, `"${key}" must be a string`);
  return v;
}
