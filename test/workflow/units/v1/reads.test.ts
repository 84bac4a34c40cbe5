/**
 * Which built-in calls only read (feature `local-reads`, src/common/calls.ts) and what
 * `swflow.local` says (src/common/metadata.ts): pure rules, no server.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { functionReads, isSafeMethod } from '../../../../src/common/calls';
import { isLocalCall, localSetting } from '../../../../src/common/metadata';

test('safe methods: GET, HEAD, OPTIONS in any case; writes, expressions and missing methods are not', () => {
  for (const m of ['get', 'GET', ' Head ', 'options']) assert.ok(isSafeMethod(m), m);
  for (const m of ['post', 'PUT', 'patch', 'delete', 'TRACE', 'CONNECT', '${ .method }', '', undefined, null, 1]) assert.ok(!isSafeMethod(m), String(m));
});

test('0.8 functions: REST when the pin listed it, GraphQL queries not mutations, OData queries; nothing else', () => {
  const reads = new Set(['listPets']);
  assert.ok(functionReads({ name: 'listPets', type: 'rest', operation: 'api.json#listPets' }, reads));
  assert.ok(!functionReads({ name: 'addPet', type: 'rest', operation: 'api.json#addPet' }, reads));
  assert.ok(functionReads({ name: 'q', type: 'graphql', operation: 'http://g/graphql#query#pets' }, reads));
  assert.ok(!functionReads({ name: 'm', type: 'graphql', operation: 'http://g/graphql#mutation#addPet' }, reads));
  assert.ok(functionReads({ name: 'o', type: 'odata', operation: 'http://o/svc#Products' }, reads));
  for (const type of ['rpc', 'asyncapi', 'custom', 'expression'] as const) assert.ok(!functionReads({ name: 'listPets', type, operation: 'x#listPets' }, reads), type);
});

test('swflow.local: the call decides, else the workflow; true/false as booleans or strings; absent is undefined', () => {
  assert.equal(localSetting(undefined, undefined), undefined);
  assert.equal(localSetting({ other: 1 }, {}), undefined);
  assert.equal(localSetting({ 'swflow.local': 'false' }, { 'swflow.local': true }), false);
  assert.equal(localSetting({}, { 'swflow.local': 'true' }), true);
  assert.equal(localSetting({ 'swflow.local': true }, { 'swflow.local': false }), true);
  assert.equal(localSetting(undefined, { 'swflow.local': false }), false);
  // isLocalCall: the setting, else the interpreter's default (a read with local-reads).
  assert.equal(isLocalCall(undefined, undefined, true), true);
  assert.equal(isLocalCall({ 'swflow.local': 'false' }, undefined, true), false);
  assert.equal(isLocalCall(undefined, { 'swflow.local': false }, true), false);
  assert.equal(isLocalCall({ 'swflow.local': true }, undefined, false), true);
  assert.equal(isLocalCall(undefined, undefined), false);
});
