/**
 * The interpreter worker's own activities (task queue `swflow`):
 * - `swflow.resolveDefinition` (local activity): resolves the definition by workflow type and
 *   pins it into history, with its hash and the server's registered search attributes;
 * - `swflow.validateData` (local activity): checks data against a JSON Schema, inline or (1.0) an
 *   external resource it fetches (./schema-resources.ts) and returns for the run to pin;
 * - `swflow.produceEvent`: hands a produced CloudEvent to the worker's event sinks (a large
 *   output of the lifecycle completed event as an `outputUri`: ../../payloads/output-uri.ts).
 */
import { ApplicationFailure } from '@temporalio/common';
import type { NativeConnection } from '@temporalio/worker';
import type { CloudEventJson } from '../../common/contracts';
import { PRODUCE_EVENT_ACTIVITY, SEARCH_ATTRIBUTES } from '../../common/contracts';
import { INTERPRETER_FEATURES } from '../../common/features';
import { metrics } from '../../metrics';
import { tracing } from '../../tracing';
import { inSpan, withTraceContext } from '../../tracing/context';
import { payloadSettings } from '../../payloads/config';
import { RESOLVE_DEFINITION_ACTIVITY, VALIDATE_DATA_ACTIVITY, YIELD_ACTIVITY, type ResolveRequest, type ResolveResult, type ValidateDataRequest, type ValidateDataResult, type ValidateResourceResult } from '../../common/pinning';
import { Context } from '@temporalio/activity';
import { adapterServices, type AdapterServices } from '../../adapter-sdk/activities';
import { SchemaResources } from './schema-resources';
import { withOutputUri } from '../../payloads/output-uri';
import { createRedriveLedgerActivity, currentRedrive } from './redrive-ledger';
import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { DefinitionNotFound, DefinitionRegistry, definitionHash } from '../../definitions/registry';
import { CatalogResolver, FunctionNotResolved, FUNCTION_NOT_RESOLVED, type CatalogOptions } from './catalogs';
import type { Definition } from '../../common/model';
import { isV1Definition } from '../../common/model-v1';
import { FEATURE_LOCAL_READS, FEATURE_V1_CATALOGS } from '../../common/features';
import { dirname } from 'node:path';
import { SAFE_METHODS } from '../../common/calls';
import { localSetting, servedByBuiltinAdapters } from '../../common/metadata';

/** How long pinning waits for an OpenAPI document to say whether a REST function only reads (then: it does not). */
export const READ_LOOKUP_TIMEOUT_MS = 5_000;

/** The run that produced an event: sinks may key by it (the Kafka sink keys a run's records by its workflow id, keeping them in order). */
export interface ProducedBy {
  workflowId: string;
  runId: string;
}

export type EventSink = (event: CloudEventJson, producedBy: ProducedBy) => Promise<void>;

export interface InterpreterActivitiesOptions {
  registry: DefinitionRegistry;
  eventSinks?: EventSink[];
  connection?: NativeConnection;
  namespace?: string;
  log?: (msg: string) => void;
  /** 1.0 runs started here publish lifecycle CloudEvents to the event sinks (see ResolveResult.lifecycleEvents). */
  lifecycleEvents?: boolean;
  /** The interpreter features runs started here get (default: all, INTERPRETER_FEATURES); fewer act as an older worker. */
  features?: string[];
  /** How 1.0 catalogs and functions by URI are fetched when a definition is pinned (feature v1-catalogs). */
  catalogs?: CatalogOptions;
  /** Secrets and OAuth2 tokens for fetching 1.0 schema resources (default: the environment's secrets). */
  services?: AdapterServices;
  /** Folders relative schema resources are found in (the definition folders). */
  documentDirs?: string[];
}

export function createInterpreterActivities(opts: InterpreterActivitiesOptions) {
  let registered: Promise<string[]> | undefined;
  const searchAttributes = (): Promise<string[]> => {
    registered ??= (async () => {
      if (!opts.connection) return [];
      try {
        const res = await opts.connection.operatorService.listSearchAttributes({ namespace: opts.namespace ?? 'default' });
        const names = Object.keys(res.customAttributes ?? {});
        return Object.keys(SEARCH_ATTRIBUTES).filter((n) => names.includes(n));
      } catch {
        return []; // e.g. the Java time-skipping server: do not upsert anything
      }
    })();
    return registered;
  };

  const features = opts.features ?? INTERPRETER_FEATURES;
  // A definition's hash, once per loaded definition (the registry keeps the object until its file
  // changes): the pin is paid by every run, the canonical JSON and sha256 of a large document need not be.
  const hashes = new WeakMap<object, string>();
  const hashOf = (def: Definition): string => {
    let h = hashes.get(def);
    if (h === undefined) hashes.set(def, (h = definitionHash(def)));
    return h;
  };
  const catalogs = new CatalogResolver(opts.catalogs);
  // v1-catalogs: the function documents a 1.0 definition calls, pinned with it (none when the run carries them).
  const functionsOf = async (def: Definition, source: string | undefined, req: ResolveRequest) => {
    if (!features.includes(FEATURE_V1_CATALOGS) || !isV1Definition(def) || req.functionsPinned) return {};
    try {
      const functions = await catalogs.resolve(def, source);
      return Object.keys(functions).length ? { functions } : {};
    } catch (err) {
      if (err instanceof FunctionNotResolved) throw ApplicationFailure.create({ message: err.message, type: FUNCTION_NOT_RESOLVED, nonRetryable: err.permanent });
      throw err;
    }
  };
  // local-reads: the 0.8 REST functions whose OpenAPI operation only reads, once per loaded definition.
  const reads = new WeakMap<object, Promise<string[]>>();
  const readFunctionsOf = (def: Definition, source: string | undefined): Promise<{ readFunctions?: string[] }> => {
    if (!features.includes(FEATURE_LOCAL_READS) || isV1Definition(def)) return Promise.resolve({});
    let found = reads.get(def);
    if (!found) reads.set(def, (found = readFunctions(def, [...(source ? [dirname(source)] : []), ...(opts.documentDirs ?? [])])));
    return found.then((names) => (names.length ? { readFunctions: names } : {}));
  };
  const schemaResources = new SchemaResources(opts.services ?? adapterServices(), opts.documentDirs ?? []);
  const check = (schema: unknown, data: unknown, where?: string): string[] => {
    const ajv = new Ajv({ allErrors: true, strict: false });
    addFormats(ajv);
    let validate: ValidateFunction;
    try {
      validate = ajv.compile(schema as object);
    } catch (err) {
      if (!where) throw err;
      throw ApplicationFailure.create({ type: 'SchemaResource', message: `schema resource ${where} is not a usable JSON Schema: ${(err as Error).message}`, details: [{ kind: 'configuration' }], nonRetryable: true });
    }
    if (validate(data)) return [];
    return (validate.errors ?? []).map((e) => `${e.instancePath || '/'}: ${e.message ?? 'invalid'}`);
  };
  return {
    ...createRedriveLedgerActivity(opts.connection, opts.namespace ?? 'default'),
    async [RESOLVE_DEFINITION_ACTIVITY](req: ResolveRequest): Promise<ResolveResult> {
      const sa = await searchAttributes();
      // Metrics on: the run reports to the `swflow.metrics` sink (recorded here, so replays agree).
      // Without a payload store, the run checks what it hands to Temporal against the limit (recorded here, so replays agree).
      const payloads = payloadSettings();
      const lifecycle = { ...(opts.lifecycleEvents ? { lifecycleEvents: true } : {}), ...(metrics() ? { metrics: true } : {}), ...(tracing() ? { tracing: true } : {}), ...(payloads.store ? {} : { payloadLimit: payloads.limit }) };
      if (req.afterReset && opts.connection) {
        // A redrive onto another definition: that one is pinned (the reset's reason names it).
        const { reset } = await currentRedrive(opts.connection, opts.namespace ?? 'default');
        const onto = reset?.reason;
        if (onto?.definition) req = { ...req, definition: onto.definition as Definition, redrivenOnto: true } as ResolveRequest;
        else if (onto?.definitionVersion) req = { type: `${(req.definition?.id ?? req.type).split('@')[0]}@${onto.definitionVersion}`, ...(req.functionsPinned ? { functionsPinned: true } : {}) };
      }
      if (req.definition) {
        const functions = await functionsOf(req.definition, undefined, req);
        const readFunctions = await readFunctionsOf(req.definition, undefined);
        // A definition given by a redrive is returned: the run did not start with it.
        const given = (req as { redrivenOnto?: boolean }).redrivenOnto ? { definition: req.definition } : {};
        return { ...given, hash: definitionHash(req.definition), source: given.definition ? 'redrive' : 'start options', searchAttributes: sa, features, ...lifecycle, ...functions, ...readFunctions };
      }
      let found: { def: Definition; source: string };
      try {
        found = await opts.registry.resolve(req.type);
      } catch (err) {
        if (err instanceof DefinitionNotFound) throw ApplicationFailure.create({ message: err.message, type: 'DefinitionNotFound', nonRetryable: true });
        throw err;
      }
      const { def, source } = found;
      const functions = await functionsOf(def, source, req);
      const readFunctions = await readFunctionsOf(def, source);
      return { definition: def, hash: hashOf(def), source, searchAttributes: sa, features, ...lifecycle, ...functions, ...readFunctions };
    },

    async [YIELD_ACTIVITY](): Promise<null> {
      return null;
    },

    async [VALIDATE_DATA_ACTIVITY](req: ValidateDataRequest): Promise<ValidateDataResult | ValidateResourceResult> {
      if (req.resource !== undefined && req.schema === undefined) {
        // A 1.0 schema resource: fetched here (cached per worker); returned so the run pins it.
        const info = Context.current().info;
        const schema = await schemaResources.get(req.resource, { id: info.workflowExecution?.workflowId ?? '', instanceId: info.workflowExecution?.runId ?? '', definitionId: info.workflowType ?? '' });
        const endpoint = req.resource.endpoint as { uri?: string } | string | undefined;
        return { problems: check(schema, req.data, typeof endpoint === 'string' ? endpoint : endpoint?.uri), schema };
      }
      return check(req.schema, req.data);
    },

    async [PRODUCE_EVENT_ACTIVITY](produced: CloudEventJson): Promise<void> {
      // Traced: a producer span, whose context the event carries (CloudEvents distributed tracing).
      await inSpan(`produce ${produced.type}`, { kind: 'producer', attributes: { 'cloudevents.event_type': produced.type, 'cloudevents.event_id': produced.id, 'cloudevents.event_source': produced.source } }, async () => {
        // A large output of the completed event goes to the payload store; the event carries its outputUri.
        const event = withTraceContext(await withOutputUri(produced));
        const sinks = opts.eventSinks ?? [];
        if (!sinks.length) opts.log?.(`produced event ${event.type} (${event.id}) — no event sink configured`);
        const run = Context.current().info.workflowExecution;
        const producedBy: ProducedBy = { workflowId: run?.workflowId ?? '', runId: run?.runId ?? '' };
        for (const sink of sinks) await sink(event, producedBy);
      });
    },
  };
}

/**
 * The REST functions of a 0.8 definition whose OpenAPI operation is GET, HEAD or OPTIONS, looked up
 * in their documents (found beside the definition, as the REST adapter finds them). A function
 * whose document cannot be read in time, or that sets `swflow.local` itself, is not listed: its
 * calls stay activities (and report a broken document when made).
 */
async function readFunctions(def: Definition, baseDirs: string[]): Promise<string[]> {
  if (isV1Definition(def)) return [];
  const candidates = def.functions.filter((fn) => fn.type === 'rest' && servedByBuiltinAdapters(fn) && localSetting(fn.metadata, def.metadata) === undefined);
  if (!candidates.length) return [];
  // Loaded on first use: the OpenAPI parser is the REST adapter's.
  const { resolveOperation } = require('../../../adapters/rest/openapi') as typeof import('../../../adapters/rest/openapi');
  const names = await Promise.all(
    candidates.map(async (fn) => {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<undefined>((r) => (timer = setTimeout(() => r(undefined), READ_LOOKUP_TIMEOUT_MS)));
      try {
        const op = await Promise.race([resolveOperation(fn.operation, baseDirs).catch(() => undefined), late]);
        return op && SAFE_METHODS.has(op.method) ? fn.name : undefined;
      } finally {
        clearTimeout(timer);
      }
    }),
  );
  return names.filter((n): n is string => n !== undefined);
}
