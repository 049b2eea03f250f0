import { findTenant } from '../../auth/tenants.access';
import { migrationConfig } from '../../db';
import { isUuid } from '../../ids';
import { createLogger } from '../../logger';
import type { TenantDirectoryPart } from '../../tenant-moves/move-parts';
import { createTenantFence } from '../../tenant-moves/tenant-fence';
import { moveTenant, type TenantMoveResult } from '../../tenant-moves/tenant-move';
import type { TenantDirectory } from '../../clusters/tenant-directory';
import { text, UsageError, type Command, type CommandCluster } from './command';

/** What a move reports: the result, and how long the tenant's writes were paused (from the pause to the switch). */
export interface TenantMoveReport {
  result: TenantMoveResult;
  pausedMs: number | null;
}

/**
 * Moves the tenant to the cluster `to` with the clusters' own parts: the directory's pause and switch, and each cell's
 * workflows (stopped on the source's task queue, started again on the target's). Refuses, as a UsageError, a cluster
 * not listed, a tenant the directory places on no cluster holding it, and a move to the cluster the tenant is on.
 */
export async function moveTenantBetweenClusters(
  clusters: CommandCluster[],
  directory: TenantDirectory,
  tenantId: string,
  to: string,
): Promise<TenantMoveReport> {
  const names = clusters.map((cluster) => cluster.name);
  const target = clusters.find((cluster) => cluster.name === to);
  if (!target) throw new UsageError(`--to: no cluster named "${to}" (clusters: ${names.join(', ')})`);
  if (!isUuid(tenantId)) throw new UsageError(`--tenant: "${tenantId}" is not a tenant id`);
  const placement = await directory.placementOf(tenantId);
  const home = clusters.find((cluster) => cluster.name === placement.cluster)!;
  if ((await findTenant(home.db, tenantId)) === undefined) throw new UsageError(`no tenant ${tenantId} on cluster ${home.name}`);
  // Already on `to`: a move that switched but stopped before its restart left a fenced copy behind, and is finished
  // (its workflows started on `to`) by running it again; with no such copy there is nothing to move.
  const source = placement.cluster === to ? await fencedSourceOf(clusters, tenantId, to) : home;
  if (!source) throw new UsageError(`tenant ${tenantId} is already on cluster ${to}`);
  const [, pending] = (await target.db.migrate.list(migrationConfig)) as [unknown[], { file: string }[]];
  if (pending.length > 0)
    throw new UsageError(`cluster ${to} lacks ${pending.length} migration(s); run \`npm run -s cli -- db:migrate\` first`);

  let pausedAt: number | null = null;
  let pausedMs: number | null = null;
  const timedDirectory: TenantDirectoryPart = {
    clusterOf: (id) => directory.clusterOf(id),
    async beginMove(id) {
      await directory.beginMove(id);
      pausedAt = Date.now();
    },
    async finishMove(id, cluster) {
      await directory.finishMove(id, cluster);
      if (pausedAt !== null) pausedMs = Date.now() - pausedAt;
    },
  };
  const result = await moveTenant(tenantId, {
    directory: timedDirectory,
    source: { cluster: source.name, db: source.db, workflows: source.services().tenantWorkflows },
    target: { cluster: target.name, db: target.db, workflows: target.services().tenantWorkflows },
    logger: createLogger('warn', 'tenant-move', { toStderr: true }),
  });
  return { result, pausedMs };
}

/** The cluster other than `to` that holds the tenant fenced (the source of a move to `to`), if any. */
async function fencedSourceOf(clusters: CommandCluster[], tenantId: string, to: string): Promise<CommandCluster | undefined> {
  for (const cluster of clusters) if (cluster.name !== to && (await createTenantFence(cluster.db).raised(tenantId))) return cluster;
  return undefined;
}

function describe(tenantId: string, to: string, { result, pausedMs }: TenantMoveReport): string {
  if (result.outcome === 'refused')
    return [
      `tenant ${tenantId} NOT moved to ${to}: the copy did not verify and was rolled back; the tenant stays where it was`,
      ...result.differences.map((difference) => `  ${difference}`),
    ].join('\n');
  const rows = result.copied === null ? null : Object.values(result.copied).reduce((sum, n) => sum + n, 0);
  return [
    `tenant ${tenantId} moved to ${to}`,
    `  writes paused ${pausedMs === null ? '-' : `${(pausedMs / 1000).toFixed(2)} s`}`,
    `  rows copied ${rows === null ? '0 (the target already held the verified copy)' : `${rows} in ${Object.keys(result.copied!).length} tables`}`,
    `  verification: row counts, balances and ledger:verify on both clusters agree`,
    `  workflows stopped on the source ${result.stoppedWorkflows.length}, started on ${to} ${result.restartedWorkflows}`,
  ].join('\n');
}

export const tenantMoveCommands: Record<string, Command> = {
  'tenant:move': {
    usage:
      'tenant:move --tenant TENANT_ID --to CLUSTER [--json]   (copies the tenant to another cluster while its writes pause, verifies, switches, moves its workflows; exit 1 when the copy does not verify)',
    options: { tenant: { type: 'string' }, to: { type: 'string' } },
    required: ['tenant', 'to'],
    async run(context) {
      if (!context.directory) throw new UsageError('tenant:move needs several clusters (DATABASE_CLUSTERS): there is only one');
      const tenantId = text(context, 'tenant');
      const to = text(context, 'to');
      const report = await moveTenantBetweenClusters(context.clusters, context.directory, tenantId, to);
      if (report.result.outcome === 'refused') process.exitCode = 1;
      context.print(describe(tenantId, to, report), { tenantId, to, pausedMs: report.pausedMs, ...report.result });
    },
  },
};
