import { registerSearchAttributes } from '../register-search-attributes';
import type { Command } from './command';

export const temporalCommands: Record<string, Command> = {
  'temporal:setup': {
    usage: 'temporal:setup',
    needsMigratedDatabase: false,
    options: {},
    async run(context) {
      const added = await registerSearchAttributes(context.temporal.connection, context.config.TEMPORAL_NAMESPACE);
      context.print(added.length ? `registered search attributes: ${added.join(', ')}` : 'search attributes already registered', { added });
    },
  },
};
