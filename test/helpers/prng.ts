/** A small seeded PRNG (mulberry32) for property and fuzz tests: the same seed gives the same sequence. */
export { mulberry32 } from '../../src/testing/order';
