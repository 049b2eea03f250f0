import { z } from 'zod';

/** A Postgres cluster of the deployment: the tenants placed on it, with a Temporal task queue of its own (a cell). */
export interface ClusterSettings {
  name: string;
  databaseUrl: string;
  taskQueue: string;
}

/** The name of the one cluster when DATABASE_CLUSTERS is unset. */
export const DEFAULT_CLUSTER = 'main';

const CLUSTER_NAME = /^[a-z][a-z0-9_-]{0,31}$/;

/**
 * DATABASE_CLUSTERS: `name=url` pairs separated by commas (`a=postgres://…/ledger,b=postgres://…/ledger`), the first
 * being where tenants with no placement live. Unset: one cluster, `main`, on DATABASE_URL.
 */
const clusterList = z
  .string()
  .optional()
  .transform((text, ctx) => {
    if (text === undefined) return undefined;
    const clusters: Array<{ name: string; databaseUrl: string }> = [];
    for (const entry of text.split(',').map((part) => part.trim())) {
      const separator = entry.indexOf('=');
      const name = separator > 0 ? entry.slice(0, separator) : '';
      const databaseUrl = separator > 0 ? entry.slice(separator + 1) : '';
      if (!CLUSTER_NAME.test(name) || !/^postgres(ql)?:\/\//.test(databaseUrl)) {
        ctx.addIssue({
          code: 'custom',
          message: `expected name=postgres://… pairs separated by commas (names: lower-case letters, digits, - and _), got "${entry}"`,
        });
        return z.NEVER;
      }
      if (clusters.some((cluster) => cluster.name === name)) {
        ctx.addIssue({ code: 'custom', message: `names the cluster "${name}" twice` });
        return z.NEVER;
      }
      clusters.push({ name, databaseUrl });
    }
    return clusters;
  });

export const clustersEnv = z.object({
  DATABASE_CLUSTERS: clusterList,
  /** The directory of tenant placements (unset: the first cluster's database). */
  CONTROL_DATABASE_URL: z.string().min(1).optional(),
});

/**
 * The cells of the deployment: the first keeps TEMPORAL_TASK_QUEUE (so one cluster is exactly what ran before), each
 * further one polls `<TEMPORAL_TASK_QUEUE>.<name>`.
 */
export function clustersOf(config: {
  DATABASE_CLUSTERS?: ReadonlyArray<{ name: string; databaseUrl: string }> | undefined;
  DATABASE_URL: string;
  TEMPORAL_TASK_QUEUE: string;
}): ClusterSettings[] {
  const listed = config.DATABASE_CLUSTERS ?? [{ name: DEFAULT_CLUSTER, databaseUrl: config.DATABASE_URL }];
  return listed.map((cluster, index) => ({
    ...cluster,
    taskQueue: index === 0 ? config.TEMPORAL_TASK_QUEUE : `${config.TEMPORAL_TASK_QUEUE}.${cluster.name}`,
  }));
}
