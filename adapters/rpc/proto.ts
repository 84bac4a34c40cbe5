/**
 * Proto files for `rpc` functions: `operation` is `<proto file URI>#<service>#<method>` (spec
 * 0.8, "Using Functions for RPC Service Invocations"). The file is read by protobufjs — from the
 * definition folders, or over http(s) with the function's resource auth, its imports relative to
 * it (Google's well-known types are built in) — and handed to @grpc/proto-loader, which makes
 * the method definitions @grpc/grpc-js calls with. Loaded once per worker and location.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, isAbsolute, resolve } from 'node:path';
import type { MethodDefinition } from '@grpc/grpc-js';
import { fromJSON, type PackageDefinition } from '@grpc/proto-loader';
import protobuf from 'protobufjs';
import { isAdapterError, isHttpUrl as isUrl, loadOnce, locateDocument, operationError } from '../../src/adapter-sdk';

/**
 * How messages become JSON, as proto3's JSON mapping prints them: field names in lowerCamelCase
 * (`inner_message` → `innerMessage`), 64-bit integers and enums as strings, bytes as base64; and
 * every field present (`defaults`), so a filter can rely on it.
 */
export const MESSAGE_OPTIONS = { keepCase: false, longs: String, enums: String, bytes: String, defaults: true, oneofs: true } as const;

export interface RpcMethod {
  /** Fully qualified service name, e.g. `greeting.Greeter`. */
  service: string;
  method: string;
  /** What grpc-js calls: path (`/greeting.Greeter/SayHello`), streaming flags, (de)serializers. */
  definition: MethodDefinition<object, object>;
  requestType: protobuf.Type;
  /** Where the proto file came from (for messages). */
  document: string;
}

interface LoadedProto {
  root: protobuf.Root;
  services: PackageDefinition;
  location: string;
}

/** Reads a proto file over http(s), with the resource auth; throws an AdapterError (OperationError, OperationUnavailable). */
export type FetchText = (url: string) => Promise<string>;


/** Splits `<proto>#<service>#<method>`. */
export function splitOperation(operation: string): { document: string; service: string; method: string } {
  const parts = operation.split('#');
  if (parts.length !== 3 || parts.some((p) => !p)) throw operationError(`operation "${operation}" is not "<proto file URI>#<service>#<method>"`);
  const [document, service, method] = parts as [string, string, string];
  return { document, service, method };
}

async function load(location: string, baseDirs: string[], fetchText: FetchText): Promise<LoadedProto> {
  const root = new protobuf.Root();
  // Imports: relative to the importing file (or URL), else in the definition folders.
  root.resolvePath = (origin, target) => {
    if (isUrl(target) || isAbsolute(target)) return target;
    if (isUrl(origin)) return new URL(target, origin).toString();
    const candidates = [resolve(dirname(origin), target), ...baseDirs.map((d) => resolve(d, target))];
    return candidates.find((c) => existsSync(c)) ?? candidates[0]!;
  };
  root.fetch = (path, callback) => {
    (isUrl(path) ? fetchText(path) : readFile(path, 'utf8')).then(
      (text) => callback(null as unknown as Error, text),
      (err: Error) => callback(err),
    );
  };
  try {
    await root.load(location, { keepCase: false });
  } catch (err) {
    if (isAdapterError(err)) throw err;
    throw operationError(`proto file ${location}: ${(err as Error).message}`);
  }
  // proto-loader makes grpc-js's method definitions (serializers with MESSAGE_OPTIONS) from the parsed root.
  const services = fromJSON(root.toJSON() as Parameters<typeof fromJSON>[0], MESSAGE_OPTIONS);
  return { root, services, location };
}

/** Loads a proto file once per location (a failed load is tried again next time). */
export const loadProto: (location: string, baseDirs: string[], fetchText: FetchText) => Promise<LoadedProto> = loadOnce(load);

/** The method `service` (`Greeter` or `greeting.Greeter`) / `method` of a loaded proto file. */
export function findMethod({ root, services, location }: LoadedProto, service: string, method: string): RpcMethod {
  const names = Object.keys(services).filter((name) => root.lookup(name) instanceof protobuf.Service);
  const matches = names.filter((name) => name === service || name.endsWith(`.${service}`));
  if (matches.length !== 1) {
    const why = matches.length ? `is ambiguous (${matches.join(', ')}): write the full name` : `is not there`;
    throw operationError(`${location}: service "${service}" ${why}; its services: ${names.join(', ') || 'none'}`);
  }
  const full = matches[0]!;
  const svc = root.lookupService(full);
  const m = svc.methods[method];
  const definition = (services[full] as Record<string, MethodDefinition<object, object>>)[method];
  if (!m || !definition) throw operationError(`${location}: service ${full} has no method "${method}"; its methods: ${Object.keys(svc.methods).join(', ')}`);
  if (m.requestStream) throw operationError(`${location}: ${full}/${method} streams its requests; only unary and server-streaming methods can be called`);
  return { service: full, method, definition, requestType: m.resolvedRequestType!, document: location };
}

/** `operation` of an rpc function → the method it names. */
export async function resolveMethod(operation: string, baseDirs: string[], fetchText: FetchText): Promise<RpcMethod> {
  const { document, service, method } = splitOperation(operation);
  return findMethod(await loadProto(locateDocument(document, baseDirs, 'proto file'), baseDirs, fetchText), service, method);
}
