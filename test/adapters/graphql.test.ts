/**
 * The graphql adapter against a real GraphQL server: a schema built with the reference `graphql`
 * package (graphql-js) and served over HTTP by `graphql-http` (the GraphQL-over-HTTP reference
 * server) inside a node:http server that also checks credentials and issues OAuth2 tokens. Only
 * the resolvers stand in for the user's service. Driven by the real interpreter on the dev server.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildSchema, GraphQLError, NoSchemaIntrospectionCustomRule, specifiedRules } from 'graphql';
import { createHandler } from 'graphql-http/lib/use/http';
import { historyText } from '../../src/testing/history';
import { createBuiltinAdapterWorker } from '../../src/worker/adapter-worker';
import { buildRequestBody, splitOperation } from '../../adapters/graphql/document';
import { assertNoSecrets } from '../helpers/leaks';
import { adapterHarness, failureText, type AdapterHarness } from './harness';

const SECRETS = { PETS_TOKEN: 'pets-bearer-5e5e', CLIENT_SECRET: 'gql-client-s3cret-7a7a', ECHO_KEY: 'echo-s3cret-2f2f' };

// ---- the stand-in service -------------------------------------------------------------------
const schema = buildSchema(`
  type Query {
    pets: [Pet]
    pet(id: Int!): Pet
    petsOfKind(kind: Kind!, first: Int = 10): [Pet!]!
    me: String!
    echo(text: String!): String
    broken: Pet
  }
  type Mutation {
    createPet(pet: PetInput!): Pet
  }
  enum Kind { DOG CAT }
  type Treat { id: Int! }
  type Age { years: Int!, dateOfBirth: String! }
  type Pet {
    id: Int!
    name: String!
    kind: Kind
    favoriteTreat: Treat
    age(useDogYears: Boolean = false): Age
  }
  input PetInput { id: Int!, name: String!, favoriteTreatId: Int, kind: Kind }
`);

interface PetRow {
  id: number;
  name: string;
  kind: 'DOG' | 'CAT';
  treat?: number;
  born: number;
}
const pets = new Map<number, PetRow>([
  [42, { id: 42, name: 'Snuffles', kind: 'DOG', treat: 9001, born: 2021 }],
  [7, { id: 7, name: 'Tom', kind: 'CAT', born: 2019 }],
]);
const petOf = (p: PetRow) => ({
  id: p.id,
  name: p.name,
  kind: p.kind,
  favoriteTreat: p.treat === undefined ? null : { id: p.treat },
  age: ({ useDogYears }: { useDogYears: boolean }) => ({ years: (2025 - p.born) * (useDogYears ? 7 : 1), dateOfBirth: `${p.born}-01-01` }),
});
const rootValue = {
  pets: () => [...pets.values()].map(petOf),
  pet: ({ id }: { id: number }) => {
    const p = pets.get(id);
    if (!p) throw new GraphQLError(`no pet ${id}`, { extensions: { code: 'NOT_FOUND' } });
    return petOf(p);
  },
  petsOfKind: ({ kind, first }: { kind: string; first: number }) => [...pets.values()].filter((p) => p.kind === kind).slice(0, first).map(petOf),
  me: (_: unknown, ctx: { who: string }) => ctx.who,
  echo: ({ text }: { text: string }) => {
    throw new GraphQLError(`will not echo ${text}`, { extensions: { code: 'REJECTED' } });
  },
  broken: () => {
    throw new Error('the pet database is on fire');
  },
  createPet: ({ pet }: { pet: { id: number; name: string; favoriteTreatId?: number; kind?: 'DOG' | 'CAT' } }) => {
    const row: PetRow = { id: pet.id, name: pet.name, kind: pet.kind ?? 'DOG', treat: pet.favoriteTreatId, born: 2025 };
    pets.set(row.id, row);
    return petOf(row);
  },
};

let service: Server;
let base: string;
const issued = new Set<string>();
const received: { query: string; variables: unknown; operationName?: string | null; path: string }[] = [];

function whoIs(req: IncomingMessage): string | undefined {
  const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
  if (token === SECRETS.PETS_TOKEN) return 'static bearer';
  if (token && issued.has(token)) return 'oauth2 client';
  return undefined;
}

before(async () => {
  const graphql = createHandler<{ who: string }>({
    schema,
    rootValue,
    context: (req, params) => {
      received.push({ query: params.query, variables: params.variables, operationName: params.operationName, path: new URL(req.url, base).pathname });
      return { who: whoIs(req.raw) ?? 'anonymous' };
    },
  });
  // A server that refuses introspection (as many do in production): a GraphQL-over-HTTP 400 with errors.
  const closed = createHandler({ schema, rootValue, validationRules: [...specifiedRules, NoSchemaIntrospectionCustomRule] });
  service = createServer((req, res) => {
    const url = new URL(req.url!, base);
    const json = (status: number, v: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(v));
    };
    if (url.pathname === '/oauth2/token' && req.method === 'POST') {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        const form = Object.fromEntries(new URLSearchParams(body));
        if (form.client_id !== 'pets-app' || form.client_secret !== SECRETS.CLIENT_SECRET || form.grant_type !== 'client_credentials') return json(401, { error: 'invalid_client' });
        const token = `gql-tok-${randomBytes(6).toString('hex')}`;
        issued.add(token);
        json(200, { access_token: token, token_type: 'Bearer', expires_in: 3600 });
      });
      return;
    }
    if (url.pathname === '/secure/graphql' && !whoIs(req)) return json(401, { message: 'a bearer token is needed' });
    if (url.pathname === '/graphql' || url.pathname === '/secure/graphql') return void graphql(req, res);
    if (url.pathname === '/closed/graphql') return void closed(req, res);
    json(404, { message: 'no such path' });
  });
  await new Promise<void>((r) => service.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(service.address() as AddressInfo).port}`;
  h = await adapterHarness();
  h.serve(await createBuiltinAdapterWorker({ connection: h.connection, secrets: SECRETS }));
});

let h: AdapterHarness;

after(async () => {
  await h?.close();
  await new Promise<void>((r) => service.close(() => r()));
});

// ---- pure parts -----------------------------------------------------------------------------
test('the document: typed variables for the arguments given, the selection set with or without braces', () => {
  const op = splitOperation('http://pets.example/graphql#query#petsOfKind');
  assert.deepEqual(buildRequestBody(schema, op, { kind: 'DOG' }, 'id name', 'dogs-of kind'), {
    query: 'query dogs_of_kind($kind: Kind!) {\n  petsOfKind(kind: $kind) {\n    id\n    name\n  }\n}',
    variables: { kind: 'DOG' },
    operationName: 'dogs_of_kind',
  });
  assert.throws(() => buildRequestBody(schema, op, { kind: 'DOG' }, '{ id, age(useDogYears: ${ .dog }) { years } }', 'f'), /still holds an expression: the interpreter that started this run does not evaluate selection sets/);
  assert.throws(() => splitOperation('http://pets.example/graphql#subscription#petAdded'), /GraphQL subscriptions are not supported/);
  assert.throws(() => splitOperation('pets.graphql#query#pet'), /is not "<http\(s\) url of the GraphQL endpoint>#<query\|mutation>#<field>"/);
});

// ---- through the interpreter ----------------------------------------------------------------
const AUTH = () => [
  { name: 'petsBearer', scheme: 'bearer', properties: { token: '${ $SECRETS.PETS_TOKEN }' } },
  { name: 'petsOauth', scheme: 'oauth2', properties: { authority: base, grantType: 'clientCredentials', clientId: 'pets-app', clientSecret: '${ $SECRETS.CLIENT_SECRET }' } },
];

const functions = () => [
  { name: 'getOnePet', type: 'graphql', operation: `${base}/graphql#query#pet` },
  { name: 'createPet', type: 'graphql', operation: `${base}/graphql#mutation#createPet` },
  { name: 'petsOfKind', type: 'graphql', operation: `${base}/graphql#query#petsOfKind` },
  { name: 'echo', type: 'graphql', operation: `${base}/graphql#query#echo` },
  { name: 'broken', type: 'graphql', operation: `${base}/graphql#query#broken` },
  { name: 'meBearer', type: 'graphql', operation: `${base}/secure/graphql#query#me`, authRef: 'petsBearer' },
  { name: 'meOauth', type: 'graphql', operation: `${base}/secure/graphql#query#me`, authRef: 'petsOauth' },
  { name: 'meNoAuth', type: 'graphql', operation: `${base}/secure/graphql#query#me` },
  { name: 'closedPet', type: 'graphql', operation: `${base}/closed/graphql#query#pet` },
];

function oneState(id: string, actions: unknown[], extra: Record<string, unknown> = {}) {
  return { id, start: 'Call', secrets: Object.keys(SECRETS), auth: AUTH(), functions: functions(), states: [{ name: 'Call', type: 'operation', actions, end: true }], ...extra };
}

test("the spec's query example: typed variables, a selection set with an expression, the data merged into the state", async () => {
  received.length = 0;
  const { result } = await h.run(
    oneState('gqlpet', [{ name: 'get', functionRef: { refName: 'getOnePet', arguments: { id: '${ .petId }' }, selectionSet: '{ id, name, favoriteTreat { id }, age(useDogYears: ${ .isPetADog }) { years } }' } }]),
    { petId: 42, isPetADog: true },
  );
  assert.deepEqual(await result, { petId: 42, isPetADog: true, pet: { id: 42, name: 'Snuffles', favoriteTreat: { id: 9001 }, age: { years: 28 } } });
  const sent = received.find((r) => r.path === '/graphql' && !r.query.includes('__schema'));
  assert.ok(sent, 'the query reached the server');
  assert.match(sent.query.replace(/\s+/g, ' '), /^query getOnePet\(\$id: Int!\) \{ pet\(id: \$id\) \{ id name favoriteTreat \{ id \} age\(useDogYears: true\) \{ years \} \} \}$/);
  assert.deepEqual(sent.variables, { id: 42 });
  assert.equal(sent.operationName, 'getOnePet');
});

test("the spec's mutation example: an input object (with an enum) as one typed variable", async () => {
  received.length = 0;
  const { result } = await h.run(
    oneState('gqlcreate', [
      {
        functionRef: { refName: 'createPet', arguments: { pet: { id: 43, name: '${ .name }', favoriteTreatId: 9001, kind: 'CAT' } }, selectionSet: '{ id, name, kind, favoriteTreat { id } }' },
        actionDataFilter: { toStateData: '${ .created }' },
      },
      { functionRef: { refName: 'petsOfKind', arguments: { kind: 'CAT' }, selectionSet: 'name' }, actionDataFilter: { results: '${ .petsOfKind | map(.name) }', toStateData: '${ .cats }' } },
    ]),
    { name: 'Sadaharu' },
  );
  assert.deepEqual(await result, { name: 'Sadaharu', created: { createPet: { id: 43, name: 'Sadaharu', kind: 'CAT', favoriteTreat: { id: 9001 } } }, cats: ['Tom', 'Sadaharu'] });
  const mutation = received.find((r) => r.query.startsWith('mutation'));
  assert.match(mutation!.query.replace(/\s+/g, ' '), /^mutation createPet\(\$pet: PetInput!\) \{ createPet\(pet: \$pet\)/);
  assert.deepEqual(mutation!.variables, { pet: { id: 43, name: 'Sadaharu', favoriteTreatId: 9001, kind: 'CAT' } });
  assert.match(received.find((r) => r.query.includes('petsOfKind'))!.query.replace(/\s+/g, ' '), /\(\$kind: Kind!\) \{ petsOfKind\(kind: \$kind\) \{ name \} \}/);
});

test("a GraphQL error's extensions.code is the error code onErrors matches", async () => {
  const { result } = await h.run(
    oneState('gqlnotfound', [{ functionRef: { refName: 'getOnePet', arguments: { id: 99 }, selectionSet: '{ id }' } }], {
      errors: [{ name: 'NoSuchPet', code: 'NOT_FOUND' }],
      states: [
        { name: 'Call', type: 'operation', actions: [{ functionRef: { refName: 'getOnePet', arguments: { id: 99 }, selectionSet: '{ id }' } }], onErrors: [{ errorRef: 'NoSuchPet', transition: 'Missing' }], end: true },
        { name: 'Missing', type: 'inject', data: { found: false }, end: true },
      ],
    }),
  );
  assert.deepEqual(await result, { found: false });
});

test('a GraphQL error without a code is GraphQLError; the failure names the request and quotes the errors with their paths', async () => {
  const { result, workflowId } = await h.run(oneState('gqlbroken', [{ name: 'fetch', functionRef: { refName: 'broken', arguments: {}, selectionSet: '{ id }' } }]));
  await assert.rejects(result, (e: unknown) => {
    assert.match(failureText(e), /state "Call", action "fetch", function "broken" failed: the pet database is on fire \(code GraphQLError\)/);
    return true;
  });
  // The failed activity (what the Web UI shows for the call) names the request and quotes the errors.
  const history = historyText(await h.client.workflow.getHandle(workflowId).fetchHistory());
  assert.match(history, /POST http:\/\/127\.0\.0\.1:\d+\/graphql query broken \{ broken \{ id \} \} answered with GraphQL errors: the pet database is on fire \(at broken\)/);
});

test('bearer and oauth2 (client credentials) auth; no credential or token in the history, also when a GraphQL error echoes a secret argument', async () => {
  issued.clear();
  const { result, workflowId } = await h.run(
    oneState('gqlauth', [
      { functionRef: { refName: 'meBearer', arguments: {} }, actionDataFilter: { results: '${ .me }', toStateData: '${ .bearer }' } },
      { functionRef: { refName: 'meOauth', arguments: {} }, actionDataFilter: { results: '${ .me }', toStateData: '${ .oauth }' } },
    ]),
  );
  assert.deepEqual(await result, { bearer: 'static bearer', oauth: 'oauth2 client' });
  assert.equal(issued.size, 1, 'one token issued, used for introspection and the query');
  await assertNoSecrets(h.client, workflowId, [...Object.values(SECRETS), ...issued], [], false);

  const echoed = await h.run(oneState('gqlechosecret', [{ functionRef: { refName: 'echo', arguments: { text: '${ $SECRETS.ECHO_KEY }' } } }], { errors: [{ name: 'Rejected', code: 'REJECTED' }] }));
  await assert.rejects(echoed.result, (e: unknown) => /will not echo \[redacted\] \(code REJECTED\)/.test(failureText(e)));
  await assertNoSecrets(h.client, echoed.workflowId, [...Object.values(SECRETS), ...issued]);
});

test('without credentials the endpoint answers 401: the status is the code', async () => {
  const { result } = await h.run(
    oneState('gqlunauth', [], {
      errors: [{ name: 'Unauthorized', code: '401' }],
      states: [
        { name: 'Call', type: 'operation', actions: [{ functionRef: { refName: 'meNoAuth', arguments: {} } }], onErrors: [{ errorRef: 'Unauthorized', transition: 'Denied' }], end: true },
        { name: 'Denied', type: 'inject', data: { denied: true }, end: true },
      ],
    }),
  );
  assert.deepEqual(await result, { denied: true });
});

test('definition errors are found against the schema before sending, and not retried: OperationError', async () => {
  const cases: [unknown, RegExp][] = [
    [{ refName: 'getOnePet', arguments: { petId: 1 }, selectionSet: '{ id }' }, /query field "pet" has no argument "petId"; its arguments: id: Int!/],
    [{ refName: 'getOnePet', arguments: { id: 42 }, selectionSet: '{ id, colour }' }, /Cannot query field \\?"colour\\?" on type \\?"Pet\\?"/],
    [{ refName: 'getOnePet', arguments: { id: 'forty-two' }, selectionSet: '{ id }' }, /Int cannot represent non-integer value: \\?"forty-two\\?"/],
    [{ refName: 'getOnePet', arguments: { id: 42 } }, /Field \\?"pet\\?" of type \\?"Pet\\?" must have a selection of subfields/],
    [{ refName: 'getOnePet', arguments: { id: 42 }, selectionSet: '{ id ' }, /is not a GraphQL selection set: Syntax Error/],
  ];
  for (const [i, [functionRef, message]] of cases.entries()) {
    const before = received.length;
    const { result } = await h.run(oneState(`gqlbad${i}`, [{ functionRef }], { errors: [{ name: 'Broken', code: 'OperationError' }] }));
    await assert.rejects(result, (e: unknown) => {
      const text = failureText(e);
      assert.match(text, message);
      assert.match(text, /code OperationError/);
      return true;
    });
    assert.ok(received.slice(before).every((r) => r.query.includes('__schema')), 'nothing but introspection reached the server');
  }
});

test('an endpoint that refuses introspection (a GraphQL 400) is an OperationError that says so', async () => {
  const { result } = await h.run(oneState('gqlclosed', [{ functionRef: { refName: 'closedPet', arguments: { id: 42 }, selectionSet: '{ id }' } }]));
  await assert.rejects(result, (e: unknown) => {
    assert.match(failureText(e), /closed\/graphql did not answer the introspection query \(GraphQL introspection has been disabled, but the requested query contained the field "__schema"\.[^)]*\); the graphql adapter reads the schema by introspection/);
    assert.match(failureText(e), /code OperationError/);
    return true;
  });
});
