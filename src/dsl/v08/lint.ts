/**
 * Likely mistakes in a 0.8 document that validation otherwise accepts: warnings (refused only with
 * --strict), each with the fix as its hint. What 1.0's ../v1/lint.ts catches mostly cannot happen
 * in 0.8 or is already an error here: a correlation under another key than `correlation` and a
 * transition to an unknown state are errors, produced events do not replace state data, and
 * transitions name states, not tasks of a list. Left: a correlation's contextAttributeName that is
 * a near miss of a CloudEvents core attribute (`subjet`, `Subject`): events carry lower-case
 * names, so the definition waits for an extension attribute no event has by mistake.
 */
import type { Reporter } from '../findings';
import { nearAttribute } from '../attributes';
import { arr, isObj, type Obj } from './walk';

export function lint08(doc: Obj, rep: Reporter): void {
  arr(doc.events).forEach((ev: unknown, i: number) => {
    if (!isObj(ev)) return;
    arr(ev.correlation).forEach((c: unknown, j: number) => {
      if (!isObj(c) || typeof c.contextAttributeName !== 'string') return;
      const name = c.contextAttributeName;
      const near = nearAttribute(name, [], true);
      if (!near) return;
      rep.warn(
        `/events/${i}/correlation/${j}/contextAttributeName`,
        `correlation contextAttributeName '${name}' is not a CloudEvents attribute; did you mean '${near}'? (as written, events of '${String(ev.name)}' must carry an extension attribute of that name)`,
        `write '${near}' (the core attributes: id, source, type, subject, time, datacontenttype, dataschema, specversion)`,
      );
    });
  });
}
