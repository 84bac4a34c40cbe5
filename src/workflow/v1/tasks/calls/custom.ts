/**
 * A call to swflow's default catalog, `<activity>:<version>@default`: the adapter activity of
 * that name, on the task's `metadata.worker` queue or the built-in adapters' (the 1.0 way to
 * reach custom adapters). Its FunctionCall's type is `custom`; it never runs locally.
 */
import type { CallKind } from './activity';
import { CALL_KINDS } from './kinds';

const DEFAULT_CATALOG = /^(.+):([^:@]+)@default$/;

/** The kind of a default-catalog call, or undefined when `call` names none. */
export function defaultCatalogCall(call: string): CallKind | undefined {
  const cataloged = DEFAULT_CATALOG.exec(call);
  if (!cataloged) return undefined;
  const activity = cataloged[1];
  // A built-in kind's activity (`sw.http:1.0.0@default`) gets that kind's arguments and summary,
  // as when every kind was a branch on the activity's name; any other is summarized by its name.
  const served = Object.values(CALL_KINDS).find((kind) => kind.activity === activity);
  return {
    type: 'custom',
    activity,
    local: false,
    ...(served ? { prepare: served.prepare, target: served.target, reads: served.reads, subscribes: served.subscribes } : { target: () => activity }),
  };
}
