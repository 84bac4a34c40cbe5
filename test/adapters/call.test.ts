/**
 * How the adapter SDK puts a call back together (src/adapter-sdk/call.ts `functionCallOf`): from the
 * evaluated arguments and the `swflow-call` header (0.8 and 1.0 runs with the one wire format), or
 * from a whole FunctionCall input (runs recorded before it); anything else is not a call.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { defaultPayloadConverter } from '@temporalio/common';
import { functionCallOf } from '../../src/adapter-sdk/call';
import { CALL_HEADER } from '../../src/common/calls';
import type { CallContext, FunctionCall } from '../../src/common/contracts';

const context: CallContext = {
  function: { name: 'http', type: 'http' as never, operation: 'http', metadata: {} },
  secretArguments: { '/headers/authorization': '${ "Bearer " + $secrets.token }' },
  workflow: { id: 'w', instanceId: 'r', definitionId: 'tests/bearer' },
  state: '/do/0/callApi',
  action: 'callApi',
};
const args = { method: 'get', endpoint: { uri: 'http://x/items' }, headers: { authorization: null } };

test('arguments + header make the FunctionCall (a 1.0 call: the with, the task reference as state)', () => {
  const call = functionCallOf([args], { [CALL_HEADER]: defaultPayloadConverter.toPayload(context)! });
  assert.deepEqual(call, { ...context, arguments: args });
});

test('a whole FunctionCall input (a run from before the format) is taken as it is; other inputs are no call', () => {
  const whole: FunctionCall = { ...context, arguments: args };
  assert.equal(functionCallOf([whole], {}), whole);
  assert.equal(functionCallOf([args], {}), undefined);
  assert.equal(functionCallOf([], {}), undefined);
});
