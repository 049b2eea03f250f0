import { UsageError, text, type Command } from './command';

export const historyCommands: Record<string, Command> = {
  'history:months': {
    everyCluster: true,
    usage: "history:months [--json]   (what the worker's history loop runs every HISTORY_MONTHS_INTERVAL)",
    options: {},
    async run(context) {
      const made = await context.services.historyMonths.ensureMonths(context.config.HISTORY_MONTHS_AHEAD);
      context.print(
        made.length > 0
          ? made.map((partition) => `made ${partition.table} ${partition.month.slice(0, 7)}`).join('\n')
          : 'every month made already',
        { made },
      );
    },
  },
  'history:detach': {
    everyCluster: true,
    usage:
      "history:detach --before YYYY-MM [--json]   (archives every month before it: detaches its history partitions, every account's totals carried forward)",
    options: { before: { type: 'string' } },
    required: ['before'],
    async run(context) {
      const before = text(context, 'before');
      if (!/^\d{4}-(0[1-9]|1[0-2])$/.test(before)) throw new UsageError('--before must be a month, YYYY-MM');
      const detached = await context.services.historyMonths.detachBefore(`${before}-01`);
      context.print(
        detached.length > 0
          ? detached.map((partition) => `detached ${partition.table} ${partition.month.slice(0, 7)} as ${partition.archivedAs}`).join('\n')
          : `no month before ${before} to detach`,
        { detached },
      );
    },
  },
};
