/**
 * Every per-process cache of a worker has a bound (src/common/bounded-map.ts): the map itself
 * (least recently used first, eviction hook), and the caches built on it (an adapter's loaded
 * documents, OAuth2 tokens).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BoundedMap } from '../../src/common/bounded-map';
import { loadOnce } from '../../src/adapter-sdk/documents';
import { TokenCache, TOKEN_CACHE_ENTRIES } from '../../src/adapter-sdk/auth';

test('a bounded map keeps the most recently used entries and reports what it evicts', () => {
  const evicted: string[] = [];
  const m = new BoundedMap<string, number>(2, (k) => evicted.push(k));
  m.set('a', 1).set('b', 2);
  assert.equal(m.get('a'), 1); // a is now the most recent
  m.set('c', 3);
  assert.deepEqual([...m.keys()], ['a', 'c']);
  assert.deepEqual(evicted, ['b']);
  m.set('a', 10); // replacing does not evict
  assert.equal(m.size, 2);
  assert.deepEqual(evicted, ['b']);
  assert.equal(m.get('a'), 10);
  assert.equal(m.delete('c'), true);
  assert.deepEqual(evicted, ['b'], 'delete is not an eviction');
});

test('a bounded map refuses a bound that is not a whole number ≥ 1', () => {
  for (const bad of [0, -1, 1.5, NaN]) assert.throws(() => new BoundedMap(bad), /whole number of entries ≥ 1 \(got /);
});

test('loadOnce loads a key once while it is among the most recent, and again after it was dropped', async () => {
  const loads: string[] = [];
  const load = loadOnce(async (key: string) => (loads.push(key), key.toUpperCase()), 2);
  assert.equal(await load('x'), 'X');
  assert.equal(await load('x'), 'X');
  await load('y');
  await load('z'); // drops x
  assert.deepEqual(loads, ['x', 'y', 'z']);
  assert.equal(await load('x'), 'X');
  assert.deepEqual(loads, ['x', 'y', 'z', 'x']);
});

test('the token cache holds at most TOKEN_CACHE_ENTRIES tokens: the oldest is requested again', async () => {
  const cache = new TokenCache();
  const token = async () => ({ accessToken: 't' });
  for (let i = 0; i <= TOKEN_CACHE_ENTRIES; i++) await cache.get(`k${i}`, token);
  assert.equal(cache.requests, TOKEN_CACHE_ENTRIES + 1);
  await cache.get(`k${TOKEN_CACHE_ENTRIES}`, token); // still held
  assert.equal(cache.requests, TOKEN_CACHE_ENTRIES + 1);
  await cache.get('k0', token); // evicted: requested again
  assert.equal(cache.requests, TOKEN_CACHE_ENTRIES + 2);
});
