/**
 * An adapter from zero, with swflow's adapter SDK (`swflow/adapter`): a `custom` function whose
 * `operation` is "inventory.reserve" calls `reserve` with its evaluated arguments.
 *
 *   npx swflow worker --adapter ./inventory.ts --task-queue inventory
 *
 * (reserve.sw.yaml beside it is a definition using it.)
 */
import { AdapterError, defineAdapter } from 'swflow/adapter';

const stock: Record<string, number> = { apple: 3, pear: 0 };

export default defineAdapter({
  name: 'inventory',
  activities: {
    reserve({ item, count }: { item: string; count: number }, ctx) {
      const left = stock[item] ?? 0;
      // The code is what the definition's errors[].code matches.
      if (left < count) throw new AdapterError('OutOfStock', `only ${left} ${item} left`);
      stock[item] = left - count;
      return { item, reserved: count, left: stock[item], state: ctx.state };
    },
  },
});
