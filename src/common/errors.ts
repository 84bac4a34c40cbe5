/**
 * The root of swflow's errors: every error class in src/, adapters/ and workers/ descends from
 * {@link SwflowError}, as every failure of Temporal's TypeScript SDK descends from
 * `TemporalFailure` (`@temporalio/common`'s failure.ts).
 *
 * `instanceof` is symbol-based, as the SDK's `SymbolBasedInstanceOfError` makes it: the workflow
 * sandbox is a separate realm (node:vm) with its own copy of every class, and an adapter may load
 * its own copy of the SDK, so a check by constructor identity would say no to an error that is
 * one. A class marked with {@link errorClass} answers `instanceof` by a `Symbol.for` key that
 * every realm and every copy shares. (The SDK's helper is not exported from
 * `@temporalio/common`'s entry point, and it would spell the keys `__temporal_is…`.)
 *
 * The name lives on the class's prototype, set once when the class is defined: a constructor
 * never assigns `this.name` (inside the sandbox `Error.prototype` is frozen, and an assignment
 * would hit the inherited read-only property). Sandbox-safe.
 */

/** The key that marks instances of the error class named `name` (shared by every realm). */
export function errorMarker(name: string): symbol {
  return Symbol.for(`swflow.${name}`);
}

const isRecord = (v: unknown): v is Record<symbol, unknown> => (typeof v === 'object' && v !== null) || typeof v === 'function';

/**
 * Gives `clazz` its `name` and a cross-realm `instanceof`; call it in the class's static block:
 * `static { errorClass(this, 'ExpressionError'); }`. Names must be unique among swflow's
 * errors (test/common/errors.test.ts checks): the name is the key.
 */
export function errorClass(clazz: abstract new (...args: never[]) => Error, name: string): void {
  const marker = errorMarker(name);
  Object.defineProperty(clazz.prototype, 'name', { value: name, writable: true, configurable: true });
  Object.defineProperty(clazz.prototype, marker, { value: true });
  Object.defineProperty(clazz, Symbol.hasInstance, {
    value(this: { prototype: object }, value: unknown): boolean {
      // A subclass not marked itself inherits this method: fall back to the prototype chain for it,
      // or every instance of the parent would pass as one of the subclass (as the SDK does).
      if (this !== clazz) return isRecord(value) && this.prototype.isPrototypeOf(value);
      return isRecord(value) && value[marker] === true;
    },
  });
}

/** An error swflow raises (see the module comment). */
export class SwflowError extends Error {
  static {
    errorClass(this, 'SwflowError');
  }
}
