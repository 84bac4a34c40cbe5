/**
 * The odata adapter against a real OData v4 service (odata-service.ts: the protocol parsed by
 * an OData v4 parser, in-memory data), driven by the real interpreter on the dev server:
 * query options, key lookups (typed from $metadata), basic auth, error codes.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createBuiltinAdapterWorker } from '../../src/worker/adapter-worker';
import { parseKeys } from '../../adapters/odata/metadata';
import { keyPredicate, queryString } from '../../adapters/odata/request';
import { assertNoSecrets } from '../helpers/leaks';
import { adapterHarness, failureText, type AdapterHarness } from './harness';
import { startODataService, type ODataService } from './odata-service';

const SECRETS = { ODATA_PW: 'odata-pw-3c3c' };
const BASIC = `Basic ${Buffer.from(`reader:${SECRETS.ODATA_PW}`).toString('base64')}`;

let svc: ODataService;
let h: AdapterHarness;

before(async () => {
  svc = await startODataService(
    {
      People: {
        type: 'Person',
        key: { UserName: 'Edm.String' },
        properties: { FirstName: 'Edm.String', LastName: 'Edm.String', Age: 'Edm.Int32', City: 'Edm.String' },
        navigation: { Trips: { target: 'Trips', related: (p, sets) => sets.Trips.filter((t) => t.Owner === p.UserName) } },
        rows: [
          { UserName: 'russellwhyte', FirstName: 'Russell', LastName: 'Whyte', Age: 34, City: 'Seattle' },
          { UserName: 'scottketchum', FirstName: 'Scott', LastName: 'Ketchum', Age: 29, City: 'Boston' },
          { UserName: "o'neil", FirstName: 'Ryan', LastName: "O'Neil", Age: 41, City: 'Seattle' },
          { UserName: 'angelhuffman', FirstName: 'Angel', LastName: 'Huffman', Age: 52, City: 'Denver' },
        ],
      },
      Trips: {
        type: 'Trip',
        key: { TripId: 'Edm.Int32' },
        properties: { Name: 'Edm.String', Budget: 'Edm.Double', Owner: 'Edm.String' },
        rows: [
          { TripId: 1001, Name: 'Trip in US', Budget: 3000, Owner: 'russellwhyte' },
          { TripId: 1002, Name: 'Trip in Beijing', Budget: 2000, Owner: 'russellwhyte' },
          { TripId: 1003, Name: 'Honeymoon', Budget: 2650, Owner: "o'neil" },
        ],
      },
      OrderItems: {
        type: 'OrderItem',
        key: { OrderID: 'Edm.Int32', ItemNo: 'Edm.Int32' },
        properties: { Product: 'Edm.String' },
        rows: [
          { OrderID: 1, ItemNo: 1, Product: 'kettle' },
          { OrderID: 1, ItemNo: 2, Product: 'teapot' },
        ],
      },
    },
    (req) => (req.headers.authorization === BASIC ? undefined : 'basic credentials of a reader needed'),
  );
  h = await adapterHarness();
  h.serve(await createBuiltinAdapterWorker({ connection: h.connection, secrets: SECRETS }));
});

after(async () => {
  await h?.close();
  await svc?.close();
});

// ---- pure parts -----------------------------------------------------------------------------
test('query options: names as the schema (orderBy) or the spec example (orderby) spell them, values percent-encoded', () => {
  assert.equal(queryString({ filter: "City eq 'Seattle'", orderBy: 'Age desc', top: 2, skip: '1', count: true }), "$filter=City%20eq%20'Seattle'&$orderby=Age%20desc&$top=2&$skip=1&$count=true");
  assert.equal(queryString({ orderby: 'Age', search: 'blue & green' }), '$orderby=Age&$search=blue%20%26%20green');
  assert.equal(queryString({ select: 'Id, PersonDetail/Person/Name' }), '$select=Id%2CPersonDetail%2FPerson%2FName', "the spec example's spaces after commas are dropped");
  assert.throws(() => queryString({ where: 'x' }), /unknown queryOptions.where; the OData query options are filter, select, expand, orderby, top, skip, count, search/);
  assert.throws(() => queryString({ top: -1 }), /queryOptions.top must be a non-negative integer/);
  assert.throws(() => queryString({ count: 'yes' }), /queryOptions.count must be true or false/);
});

test('key predicates are written as literals of the key properties’ types', () => {
  assert.equal(keyPredicate("o'neil", [{ name: 'UserName', type: 'Edm.String' }], 'People'), "'o''neil'");
  assert.equal(keyPredicate('1001', [{ name: 'TripId', type: 'Edm.Int32' }], 'Trips'), '1001');
  assert.equal(keyPredicate({ OrderID: 1, ItemNo: 2 }, [{ name: 'OrderID', type: 'Edm.Int32' }, { name: 'ItemNo', type: 'Edm.Int32' }], 'OrderItems'), 'OrderID=1,ItemNo=2');
  assert.equal(keyPredicate('Red', [{ name: 'Colour', type: 'Paint.Colour' }], 'Paints'), "Paint.Colour'Red'");
  assert.throws(() => keyPredicate('abc', [{ name: 'TripId', type: 'Edm.Int32' }], 'Trips'), /key "TripId" is Edm.Int32 but "abc" is not one/);
  assert.throws(() => keyPredicate(1, [{ name: 'OrderID', type: 'Edm.Int32' }, { name: 'ItemNo', type: 'Edm.Int32' }], 'OrderItems'), /the key of OrderItems has the properties OrderID, ItemNo: give key as an object of them/);
});

test('$metadata: keys of entity sets, inherited keys and schema aliases', () => {
  const xml = `<edmx:Edmx Version="4.0" xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx"><edmx:DataServices>
    <Schema Namespace="Org.Example" Alias="ex" xmlns="http://docs.oasis-open.org/odata/ns/edm">
      <EntityType Name="Base"><Key><PropertyRef Name="Id"/></Key><Property Name="Id" Type="Edm.Guid"/></EntityType>
      <EntityType Name="Doc" BaseType="ex.Base"><Property Name="Title" Type="Edm.String"/></EntityType>
      <EntityContainer Name="C"><EntitySet Name="Docs" EntityType="Org.Example.Doc"/></EntityContainer>
    </Schema></edmx:DataServices></edmx:Edmx>`;
  assert.deepEqual([...parseKeys(xml)], [['Docs', [{ name: 'Id', type: 'Edm.Guid' }]]]);
});

// ---- through the interpreter ----------------------------------------------------------------
const functions = () => [
  { name: 'queryPeople', type: 'odata', operation: `${svc.base}/odata#People` },
  { name: 'queryTrips', type: 'odata', operation: `${svc.base}/odata#Trips` },
  { name: 'orderItem', type: 'odata', operation: `${svc.base}/odata#OrderItems` },
  { name: 'securePeople', type: 'odata', operation: `${svc.base}/secure/odata#People`, authRef: 'reader' },
  { name: 'unauthenticatedPeople', type: 'odata', operation: `${svc.base}/secure/odata#People` },
];

function flow(id: string, states: unknown[], extra: Record<string, unknown> = {}) {
  return { id, start: (states[0] as { name: string }).name, secrets: Object.keys(SECRETS), auth: [{ name: 'reader', scheme: 'basic', properties: { username: 'reader', password: '${ $SECRETS.ODATA_PW }' } }], functions: functions(), states, ...extra };
}
/** A run's result; a failed run rejects with its whole failure chain (to say why). */
const outcome = (result: Promise<unknown>) => result.catch((e: unknown) => Promise.reject(new Error(failureText(e))));
const call = (refName: string, args: unknown, toStateData?: string) => ({ functionRef: { refName, arguments: args }, ...(toStateData ? { actionDataFilter: { toStateData } } : {}) });
/** An operation state that ends the flow (unless `more` says otherwise). */
const operation = (name: string, actions: unknown[], more: Record<string, unknown> = {}) => ({ name, type: 'operation', actions, end: true, ...more });

test("the spec's example query options: $filter (with an expression), $expand, $select, $orderby, $top, $skip, $count", async () => {
  svc.received.length = 0;
  const { result } = await h.run(
    flow('odataquery', [
      operation('Query', [
        call('queryPeople', { queryOptions: { filter: 'Age ge ${ .minAge }', expand: 'Trips($select=Name)', select: 'FirstName, Age', orderby: 'Age desc', top: 2, skip: 1, count: true } }, '${ .people }'),
      ]),
    ]),
    { minAge: 30 },
  );
  assert.deepEqual(await outcome(result), {
    minAge: 30,
    people: {
      '@odata.context': `${svc.base}/odata/$metadata#People`,
      '@odata.count': 3,
      value: [
        { UserName: "o'neil", FirstName: 'Ryan', Age: 41, Trips: [{ TripId: 1003, Name: 'Honeymoon' }] },
        { UserName: 'russellwhyte', FirstName: 'Russell', Age: 34, Trips: [{ TripId: 1001, Name: 'Trip in US' }, { TripId: 1002, Name: 'Trip in Beijing' }] },
      ],
    },
  });
  assert.deepEqual(svc.received.at(-1), {
    path: '/odata/People',
    query: { $filter: 'Age ge 30', $expand: 'Trips($select=Name)', $select: 'FirstName,Age', $orderby: 'Age desc', $top: '2', $skip: '1', $count: 'true' },
    authorization: undefined,
  });
});

test('$search, and the entities alone through the action’s results filter', async () => {
  const { result } = await h.run(
    flow('odatasearch', [
      operation('Search', [{ functionRef: { refName: 'queryPeople', arguments: { queryOptions: { search: 'Seattle AND NOT Ryan', select: 'FirstName' } } }, actionDataFilter: { results: '${ .value | map(.FirstName) }', toStateData: '${ .names }' } }]),
    ]),
  );
  assert.deepEqual(await outcome(result), { names: ['Russell'] });
});

test('key lookups: a string key (quoted, its quote doubled), an integer key, a composite key — typed from $metadata', async () => {
  svc.received.length = 0;
  const { result } = await h.run(
    flow('odatakeys', [
      operation('Lookup', [
        call('queryPeople', { key: '${ .user }', queryOptions: { select: 'LastName', expand: 'Trips' } }, '${ .person }'),
        call('queryTrips', { key: '${ .trip }' }, '${ .trip }'),
        call('orderItem', { key: { OrderID: 1, ItemNo: 2 } }, '${ .item }'),
      ]),
    ]),
    { user: "o'neil", trip: 1001 },
  );
  assert.deepEqual(await outcome(result), {
    user: "o'neil",
    person: { '@odata.context': `${svc.base}/odata/$metadata#People/$entity`, UserName: "o'neil", LastName: "O'Neil", Trips: [{ TripId: 1003, Name: 'Honeymoon', Budget: 2650, Owner: "o'neil" }] },
    trip: { '@odata.context': `${svc.base}/odata/$metadata#Trips/$entity`, TripId: 1001, Name: 'Trip in US', Budget: 3000, Owner: 'russellwhyte' },
    item: { '@odata.context': `${svc.base}/odata/$metadata#OrderItems/$entity`, OrderID: 1, ItemNo: 2, Product: 'teapot' },
  });
  assert.deepEqual(
    svc.received.map((r) => r.path),
    ['/odata/$metadata', "/odata/People('o''neil')", '/odata/Trips(1001)', '/odata/OrderItems(OrderID=1,ItemNo=2)'],
    'the metadata is read once per service',
  );
});

test('a key that matches nothing answers 404: the code onErrors matches, with the OData error message', async () => {
  const { result } = await h.run(
    flow(
      'odatamissing',
      [
        operation('Lookup', [call('queryPeople', { key: 'nobody' })], { onErrors: [{ errorRef: 'NoSuchPerson', transition: 'Missing' }] }),
        { name: 'Missing', type: 'inject', data: { found: false }, end: true },
      ],
      { errors: [{ name: 'NoSuchPerson', code: '404' }] },
    ),
  );
  assert.deepEqual(await outcome(result), { found: false });
  const unhandled = await h.run(flow('odatamissing2', [operation('Lookup', [{ name: 'find', ...call('queryPeople', { key: 'nobody' }) }])]));
  await assert.rejects(unhandled.result, (e: unknown) => {
    assert.match(failureText(e), /state "Lookup", action "find", function "queryPeople" failed: No People with key \('nobody'\) \(NotFound\) \(code 404\)/);
    return true;
  });
});

test('a $filter the service cannot parse is its 400, with its message', async () => {
  const { result } = await h.run(flow('odatabadfilter', [operation('Query', [call('queryPeople', { queryOptions: { filter: 'Age gt' } })])]));
  await assert.rejects(result, (e: unknown) => /Invalid \$filter "Age gt": Unexpected character at 11 \(BadRequest\) \(code 400\)/.test(failureText(e)));
});

test('basic auth: $metadata and the query carry the credentials; without them the service answers 401; no password in history', async () => {
  svc.received.length = 0;
  const { result, workflowId } = await h.run(
    flow('odatabasic', [operation('Lookup', [call('securePeople', { key: 'scottketchum', queryOptions: { select: 'City' } }, '${ .scott }')])]),
  );
  assert.deepEqual(await outcome(result), { scott: { '@odata.context': `${svc.base}/secure/odata/$metadata#People/$entity`, UserName: 'scottketchum', City: 'Boston' } });
  assert.deepEqual(svc.received.map((r) => [r.path, r.authorization === BASIC]), [['/secure/odata/$metadata', true], ["/secure/odata/People('scottketchum')", true]]);
  await assertNoSecrets(h.client, workflowId, [SECRETS.ODATA_PW, BASIC.slice(6)], [], false);

  const denied = await h.run(
    flow(
      'odatadenied',
      [
        operation('Query', [call('unauthenticatedPeople', { queryOptions: { top: 1 } })], { onErrors: [{ errorRef: 'Unauthorized', transition: 'Denied' }] }),
        { name: 'Denied', type: 'inject', data: { denied: true }, end: true },
      ],
      { errors: [{ name: 'Unauthorized', code: '401' }] },
    ),
  );
  assert.deepEqual(await outcome(denied.result), { denied: true });
});

test('arguments outside the OData schema are a non-retryable OperationError, before anything is sent', async () => {
  const cases: [unknown, RegExp][] = [
    [{ filter: "City eq 'Seattle'" }, /an odata function takes the arguments "key" and "queryOptions" \(the spec's OData schema\), not "filter"/],
    [{ queryOptions: { where: 'x' } }, /unknown queryOptions.where/],
    [{ key: 'x', queryOptions: { top: 'all' } }, /queryOptions.top must be a non-negative integer, got \\?"all\\?"/],
  ];
  for (const [i, [args, message]] of cases.entries()) {
    svc.received.length = 0;
    const { result } = await h.run(flow(`odatabad${i}`, [operation('Query', [call('queryTrips', args)])]));
    await assert.rejects(result, (e: unknown) => {
      assert.match(failureText(e), message);
      assert.match(failureText(e), /code OperationError/);
      return true;
    });
    assert.deepEqual(svc.received, [], 'nothing was sent');
  }
  const composite = await h.run(flow('odatabadkey', [operation('Query', [call('orderItem', { key: 1 })])]));
  await assert.rejects(composite.result, (e: unknown) => /the key of OrderItems has the properties OrderID, ItemNo: give key as an object of them \(code OperationError\)/.test(failureText(e)));
});
