/**
 * The GraphQL document of a call: `<url>#<query|mutation>#<field>` with the action's
 * `arguments` and `selectionSet` becomes
 *
 *   query getOnePet($id: Int!) { pet(id: $id) { id, name, favoriteTreat { id } } }
 *
 * with `{ "id": 42 }` as its variables. Each argument is a variable typed as the field's
 * argument is in the schema (so input objects, lists, enums and custom scalars travel as JSON
 * variables, never spliced into the text), and the document is parsed, validated against the
 * schema and its variables coerced by graphql-js before it is sent: a misspelt argument, a
 * selection of an unknown field or a value of the wrong type is a definition error with
 * graphql-js's own message.
 */
import { getVariableValues, parse, print, validate, type DocumentNode, type GraphQLField, type GraphQLSchema, type OperationDefinitionNode } from 'graphql';
import { DefinitionError, type Json } from '../../src/adapter-sdk';

export interface GraphQLOperation {
  endpoint: string;
  kind: 'query' | 'mutation';
  field: string;
}

/** Splits `<url>#<query|mutation>#<field>`. */
export function splitOperation(operation: string): GraphQLOperation {
  const parts = operation.split('#');
  const [field, kind] = [parts.pop(), parts.pop()];
  const endpoint = parts.join('#');
  if (!/^https?:\/\//i.test(endpoint) || !field || (kind !== 'query' && kind !== 'mutation')) {
    const hint = kind === 'subscription' ? ' (GraphQL subscriptions are not supported, as the spec says)' : '';
    throw new DefinitionError(`operation "${operation}" is not "<http(s) url of the GraphQL endpoint>#<query|mutation>#<field>"${hint}`);
  }
  return { endpoint, kind, field };
}

export interface GraphQLRequestBody {
  query: string;
  variables: Record<string, Json>;
  operationName: string;
}

/** A GraphQL name for the operation (server logs show it): the function's name, made a Name. */
function operationName(functionName: string): string {
  const name = functionName.replace(/[^_0-9A-Za-z]/g, '_');
  return /^[_A-Za-z]/.test(name) ? name : `_${name}`;
}

/** The selection set as written (`{ id, name }`), braces added when left out; undefined when empty. */
function selectionOf(selectionSet: string | undefined): string | undefined {
  const text = selectionSet?.trim();
  if (!text) return undefined;
  // Runs started before the interpreter evaluated selection sets pass their expressions as written.
  if (text.includes('${')) throw new DefinitionError(`selectionSet ${JSON.stringify(text)} still holds an expression: the interpreter that started this run does not evaluate selection sets (upgrade the interpreter worker)`);
  return text.startsWith('{') ? text : `{ ${text} }`;
}

function fieldOf(schema: GraphQLSchema, op: GraphQLOperation): GraphQLField<unknown, unknown> {
  const root = op.kind === 'query' ? schema.getQueryType() : schema.getMutationType();
  if (!root) throw new DefinitionError(`${op.endpoint} has no ${op.kind} type`, true);
  const field = root.getFields()[op.field];
  if (!field) throw new DefinitionError(`${op.endpoint} has no ${op.kind} field "${op.field}"; its ${op.kind} fields: ${Object.keys(root.getFields()).join(', ')}`, true);
  return field;
}

/** The request body of one call (see the module comment). */
export function buildRequestBody(schema: GraphQLSchema, op: GraphQLOperation, args: Json, selectionSet: string | undefined, functionName: string): GraphQLRequestBody {
  if (args !== null && (typeof args !== 'object' || Array.isArray(args))) throw new DefinitionError(`arguments must be an object of the field's arguments, got ${JSON.stringify(args)}`);
  const variables = (args ?? {}) as Record<string, Json>;
  const field = fieldOf(schema, op);
  const declared = new Map(field.args.map((a) => [a.name, a]));
  for (const name of Object.keys(variables)) {
    if (!declared.has(name)) {
      const known = field.args.map((a) => `${a.name}: ${String(a.type)}`).join(', ') || 'none';
      throw new DefinitionError(`${op.kind} field "${op.field}" has no argument "${name}"; its arguments: ${known}`, true);
    }
  }
  const names = Object.keys(variables);
  const varDefs = names.map((n) => `$${n}: ${String(declared.get(n)!.type)}`).join(', ');
  const argList = names.map((n) => `${n}: $${n}`).join(', ');
  const selection = selectionOf(selectionSet);
  const name = operationName(functionName);
  const text = `${op.kind} ${name}${varDefs ? `(${varDefs})` : ''} { ${op.field}${argList ? `(${argList})` : ''}${selection ? ` ${selection}` : ''} }`;

  let document: DocumentNode;
  try {
    document = parse(text);
  } catch (err) {
    throw new DefinitionError(`selectionSet ${JSON.stringify(selectionSet)} is not a GraphQL selection set: ${(err as Error).message}`);
  }
  const problems = validate(schema, document).map((e) => e.message);
  if (problems.length) throw new DefinitionError(`the ${op.kind} does not fit ${op.endpoint}'s schema: ${problems.join('; ')} (document: ${print(document)})`, true);
  const operation = document.definitions[0] as OperationDefinitionNode;
  const coerced = getVariableValues(schema, operation.variableDefinitions ?? [], variables);
  if (coerced.errors) throw new DefinitionError(`arguments do not fit the ${op.kind} field "${op.field}": ${coerced.errors.map((e) => e.message).join('; ')}`, true);
  return { query: print(document), variables, operationName: name };
}
