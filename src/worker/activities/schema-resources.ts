/**
 * External JSON Schemas of 1.0 input/output/export checkpoints (`schema: { resource: { endpoint } }`),
 * fetched by the interpreter worker for `swflow.validateData` — never by the workflow: `http(s)`
 * with the endpoint's authentication policy (basic, bearer, digest, certificate, oauth2, oidc; a
 * secret-based one read from the worker's secrets, as adapters read them), or a file: a `file:`
 * URI or a path, absolute or relative to the worker's definition folders (as call documents are). JSON or YAML. Cached per worker for a few minutes (a run pins the
 * schema it got in its history anyway). Errors name the URL; credentials are redacted from them.
 */
import { readFile } from 'node:fs/promises';
import { ApplicationFailure } from '@temporalio/common';
import { parse as parseYaml } from 'yaml';
import type { Json } from '../../common/model';
import { BoundedMap } from '../../common/bounded-map';
import type { AdapterServices } from '../../adapter-sdk/activities';
import { resolveAuth } from '../../adapter-sdk/auth';
import { authenticationHeader, tokenAuthentication, type TokenSource } from '../../adapter-sdk/authentication';
import { locateDocument } from '../../adapter-sdk/documents';
import { isAdapterError } from '../../adapter-sdk/errors';
import { sendHttp } from '../../adapter-sdk/http';
import { ConfigurationError } from '../../adapter-sdk/problems';
import { Redactor } from '../../adapter-sdk/redact';

/** How long a fetched schema is reused by a worker. */
export const SCHEMA_CACHE_MS = 5 * 60_000;
/** Schema resources a worker keeps: least recently used go first. */
export const SCHEMA_CACHE_ENTRIES = 256;

type Obj = Record<string, Json>;
const isObj = (v: unknown): v is Obj => !!v && typeof v === 'object' && !Array.isArray(v);

/** A failure the workflow turns into a problem: `status` (HTTP) or `kind: configuration`. */
function failure(message: string, details: { status?: number; kind?: 'configuration' }, nonRetryable = true): ApplicationFailure {
  return ApplicationFailure.create({ type: 'SchemaResource', message, details: [details], nonRetryable });
}

export class SchemaResources {
  private readonly cache = new BoundedMap<string, { at: number; schema: Promise<Json> }>(SCHEMA_CACHE_ENTRIES);
  /** Fetches made (for tests). */
  fetches = 0;

  constructor(
    private readonly services: AdapterServices,
    /** Where relative schema paths are found: the worker's definition folders. */
    private readonly baseDirs: string[] = [],
    private readonly ttlMs = SCHEMA_CACHE_MS,
  ) {}

  /** The schema a resource names (cached per worker). */
  async get(resource: unknown, workflow: { id: string; instanceId: string; definitionId: string }): Promise<Json> {
    const key = JSON.stringify(resource);
    const hit = this.cache.get(key);
    if (hit && Date.now() - hit.at < this.ttlMs) return hit.schema;
    const schema = this.fetch(resource, workflow);
    this.cache.set(key, { at: Date.now(), schema });
    schema.catch(() => this.cache.delete(key));
    return schema;
  }

  private async fetch(resource: unknown, workflow: { id: string; instanceId: string; definitionId: string }): Promise<Json> {
    this.fetches++;
    const endpoint = isObj(resource) ? resource.endpoint : undefined;
    const uri = typeof endpoint === 'string' ? endpoint : isObj(endpoint) && typeof endpoint.uri === 'string' ? endpoint.uri : undefined;
    if (!uri) throw failure('the schema resource has no endpoint URI', { kind: 'configuration' });
    const policy = isObj(endpoint) ? endpoint.authentication : undefined;
    const redactor = new Redactor();
    let text: string;
    try {
      text = /^https?:/i.test(uri) ? await this.fetchHttp(uri, policy, redactor, workflow) : await readLocal(uri, this.baseDirs);
    } catch (err) {
      if (err instanceof ApplicationFailure) throw err;
      const e = err as Error & { code?: string; nonRetryable?: boolean };
      if (err instanceof ConfigurationError || (isAdapterError(err) && err.nonRetryable)) throw failure(redactor.text(`schema resource ${uri}: ${e.message}`), { kind: 'configuration' });
      // A refused token request (AuthError) is an authentication problem; a connection failure is retried.
      if (isAdapterError(err) && err.code === 'AuthError') throw failure(redactor.text(`schema resource ${uri}: ${e.message}`), { status: 401 });
      throw failure(redactor.text(`schema resource ${uri}: ${e.message}`), { status: 503 }, false);
    }
    try {
      return JSON.parse(text) as Json;
    } catch {
      try {
        const parsed = parseYaml(text) as Json;
        if (isObj(parsed) || typeof parsed === 'boolean') return parsed;
      } catch {
        /* below */
      }
      throw failure(`schema resource ${uri} is not a JSON (or YAML) schema: ${JSON.stringify(text.slice(0, 100))}`, { kind: 'configuration' });
    }
  }

  private async fetchHttp(uri: string, policy: Json | undefined, redactor: Redactor, workflow: { id: string; instanceId: string; definitionId: string }): Promise<string> {
    const { secrets, tokens } = this.services;
    const call = { function: { name: 'schema', type: 'custom' as const, operation: uri, metadata: {} }, workflow, state: 'schema', arguments: null };
    const source: TokenSource = {
      secret: (name) => {
        const v = secrets[name];
        redactor.add(v);
        return v;
      },
      redact: (...values) => redactor.add(...values),
      authorize: (def) => resolveAuth(def, call, secrets, redactor, tokens),
      fetch: (request, options) => sendHttp(request, options),
    };
    const headers: Record<string, string> = { accept: 'application/schema+json, application/json, application/yaml;q=0.9, */*;q=0.5' };
    const authorization = authenticationHeader(policy, source);
    if (authorization) headers.authorization = authorization;
    const auth = await tokenAuthentication(policy, source);
    const res = await sendHttp({ method: 'GET', url: uri, headers }, { auth });
    const body = await res.text();
    if (!res.ok) {
      throw failure(redactor.text(`schema resource GET ${uri} answered ${res.status} ${res.statusText}${body ? `: ${body.slice(0, 200)}` : ''}`), { status: res.status }, res.status < 500);
    }
    return body;
  }
}

/** A `file:` URI or a path: absolute, or relative to the definition folders (as documents of calls are found). */
async function readLocal(uri: string, baseDirs: string[]): Promise<string> {
  if (/^[a-z][a-z0-9+.-]*:/i.test(uri) && !/^file:/i.test(uri)) throw new ConfigurationError(`only http(s) and file schema resources are fetched, not ${JSON.stringify(uri)}`);
  let path: string;
  try {
    path = locateDocument(uri, baseDirs, 'schema resource');
  } catch (err) {
    throw failure((err as Error).message, { status: 404 });
  }
  try {
    return await readFile(path, 'utf8');
  } catch (err) {
    throw failure(`schema resource ${uri}: ${(err as Error).message}`, { status: 404 });
  }
}
