import { migrationConfig } from '../../db';
import type { Command } from './command';

export const dbCommands: Record<string, Command> = {
  'db:migrate': {
    usage: 'db:migrate',
    needsMigratedDatabase: false,
    options: {},
    async run(context) {
      const [batch, applied] = await context.db.migrate.latest(migrationConfig);
      context.print(applied.length ? `applied ${applied.length} migration(s) in batch ${batch}` : 'database is up to date', {
        batch,
        applied,
      });
    },
  },
  'db:rollback': {
    usage: 'db:rollback [--all]',
    needsMigratedDatabase: false,
    options: { all: { type: 'boolean' } },
    async run(context) {
      const [batch, reverted] = await context.db.migrate.rollback(migrationConfig, Boolean(context.options.all));
      context.print(`rolled back ${reverted.length} migration(s)`, { batch, reverted });
    },
  },
};
