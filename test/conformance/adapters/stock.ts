/** A real adapter for the runner's `adapters:` field (cases/real-adapter.case.yaml). */
import { AdapterError, defineAdapter } from '../../../src/adapter-sdk';

export default defineAdapter({
  name: 'stock',
  activities: {
    count(args: { items: string[]; token: string }, ctx) {
      if (args.token !== 'stock-t0ken-5150') throw new AdapterError('Forbidden', 'wrong token');
      if (!args.items.length) throw new AdapterError('EmptyList', `nothing to count in ${ctx.state}`);
      return { count: args.items.length, state: ctx.state };
    },
  },
});
