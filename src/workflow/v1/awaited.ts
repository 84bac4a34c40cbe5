/**
 * SwAwaitedEvents for a 1.0 run (feature `v1-awaited-events`): the entries its active `listen`
 * tasks wait for (events/mailbox.ts `awaitedEntries`, computed by ../../common/awaited-events.ts),
 * written with the other search attributes just before the run blocks (ui.ts).
 */
import type { Mailbox } from '../events/mailbox';
import type { Tracker } from '../ui';
import { FEATURE_V1_AWAITED_EVENTS } from '../resolve';

export function trackAwaitedEntries(tracker: Tracker, mailbox: Mailbox, features: ReadonlySet<string>): void {
  if (features.has(FEATURE_V1_AWAITED_EVENTS)) tracker.trackAwaitedEvents(() => mailbox.sortedAwaitedEntries());
}
