/**
 * The call's arguments → the request message. protobufjs' `fromObject` drops fields it does not
 * know, so a misspelt argument would silently reach the service as a default value; here every
 * name is checked against the message type first (recursively). As proto3's JSON mapping has
 * it, both the lowerCamelCase name (`innerHello`) and the .proto's own (`inner_hello`) are accepted.
 */
import protobuf from 'protobufjs';
import { operationError, type Json } from '../../src/adapter-sdk';

const isObject = (v: unknown): v is Record<string, Json> => Boolean(v) && typeof v === 'object' && !Array.isArray(v);

/** The request message for `args` (lowerCamelCase field names, as the types are loaded); a name the type does not have is an OperationError. */
export function requestMessage(type: protobuf.Type, args: Json, path = ''): Record<string, Json> {
  if (args === null || args === undefined) return {};
  if (!isObject(args)) throw operationError(`the arguments${path ? ` at ${path}` : ''} must be an object (message ${type.fullName.slice(1)}), got ${JSON.stringify(args)}`);
  // Google's well-known types (Struct, Value, Timestamp as JSON...) are protobufjs' business.
  if (type.fullName.startsWith('.google.protobuf.')) return args;
  const out: Record<string, Json> = {};
  for (const [key, value] of Object.entries(args)) {
    const field = type.fields[key] ?? type.fields[protobuf.util.camelCase(key)];
    if (!field) {
      const known = type.fieldsArray.map((f) => f.name).join(', ') || 'none';
      throw operationError(`message ${type.fullName.slice(1)} has no field "${key}"${path ? ` (at ${path})` : ''}; its fields: ${known}`);
    }
    out[field.name] = nested(field, value, `${path}${path ? '.' : ''}${field.name}`);
  }
  return out;
}

function nested(field: protobuf.Field, value: Json, path: string): Json {
  field.resolve();
  const type = field.resolvedType;
  if (!(type instanceof protobuf.Type) || value === null) return value;
  if (field.map && isObject(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, requestMessage(type, v, `${path}[${k}]`)]));
  if (field.repeated && Array.isArray(value)) return value.map((v, i) => requestMessage(type, v, `${path}[${i}]`));
  return requestMessage(type, value, path);
}
