import { controlMigrationConfig, createKnex, migrationConfig, type Db } from '../../db';
import type { Command } from './command';

export const dbCommands: Record<string, Command> = {
  'db:migrate': {
    usage: 'db:migrate   (every cluster, then the control database of tenant placements)',
    needsMigratedDatabase: false,
    options: {},
    async run(context) {
      const migrated: Record<string, unknown> = {};
      const lines: string[] = [];
      const migrate = async (name: string, db: Db, migrations: typeof migrationConfig) => {
        const [batch, applied] = (await db.migrate.latest(migrations)) as [number, string[]];
        migrated[name] = { batch, applied };
        lines.push(applied.length ? `${name}: applied ${applied.length} migration(s) in batch ${batch}` : `${name}: up to date`);
      };
      for (const cluster of context.clusters) await migrate(cluster.name, cluster.db, migrationConfig);
      const control = createKnex({ DATABASE_URL: context.config.CONTROL_DATABASE_URL, DATABASE_POOL_MAX: 1 });
      await migrate('control', control, controlMigrationConfig).finally(() => control.destroy());
      const only = context.clusters.length === 1 ? (migrated[context.clusters[0]!.name] as { batch: number; applied: string[] }) : null;
      // One cluster: the answer it always gave (the control database beside it is a line of its own).
      context.print(lines.join('\n'), only ? { ...only, clusters: migrated } : { clusters: migrated });
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
