import type { Db } from '../db';
import type { Logger } from '../logger';
import type { TenantDirectoryPart, TenantWorkflowsPart } from './move-parts';
import { copyTenantRows } from './tenant-copy';
import { createTenantFence } from './tenant-fence';
import { tenantTables } from './tenant-tables';
import { tenantCopyDifferences, type CopyDifferences } from './tenant-verification';

/** One side of a move: a cluster's name in the directory, its database and its workflows. */
export interface MoveSide {
  cluster: string;
  db: Db;
  workflows: TenantWorkflowsPart;
}

export interface TenantMoveDeps {
  directory: TenantDirectoryPart;
  source: MoveSide;
  target: MoveSide;
  logger: Logger;
  /** Hears each table's rows as the copy finishes it (before the target commits). */
  onTableCopied?: (table: string, rows: number) => Promise<void>;
}

export type TenantMoveResult =
  | {
      outcome: 'moved';
      /** Rows copied per table; null when the target already held the verified copy (a move run again). */
      copied: Record<string, number> | null;
      /** How long the fenced copy and its verification took (null when nothing was copied). */
      copyMs: number | null;
      stoppedWorkflows: string[];
      restartedWorkflows: number;
    }
  | { outcome: 'refused'; differences: CopyDifferences };

/** A copy that did not verify: thrown inside the target's transaction so that it rolls back. */
class CopyDiffers extends Error {
  constructor(readonly differences: CopyDifferences) {
    super(`the copy differs from the source: ${differences.join('; ')}`);
  }
}

/**
 * Moves a tenant from `source` to `target`: pauses its writes, fences its rows on the source, stops its workflows
 * there, copies them from one snapshot into one target transaction that commits only once the copy verifies,
 * switches the directory and restarts its unfinished workflows on the target. Every step can run again: a move
 * that crashed is run again from the start and picks up where it stopped (a tenant already on the target only has
 * its workflows restarted; a target already holding the copy is verified, not copied again). A copy that does not
 * verify leaves the target without it, lowers the fence, ends the pause on the source and restarts the workflows
 * there.
 */
export async function moveTenant(tenantId: string, deps: TenantMoveDeps): Promise<TenantMoveResult> {
  const { directory, source, target, logger } = deps;
  const log = logger.child({ tenantId, from: source.cluster, to: target.cluster });
  const home = await directory.clusterOf(tenantId);
  if (home === target.cluster) {
    const restartedWorkflows = await target.workflows.restartUnfinished(tenantId);
    log.info({ restartedWorkflows }, 'tenant already on the target: its unfinished workflows restarted there');
    return { outcome: 'moved', copied: null, copyMs: null, stoppedWorkflows: [], restartedWorkflows };
  }
  if (home !== source.cluster) throw new Error(`tenant ${tenantId} is on cluster ${home}, not on ${source.cluster}`);

  const tables = await tenantTables(source.db);
  const fence = createTenantFence(source.db);
  await directory.beginMove(tenantId);
  // Fenced before its workflows stop: a start the outbox was about to make is parked first, or stopped after.
  await fence.raise(tenantId);
  const stoppedWorkflows = await source.workflows.stopRunning(tenantId);

  let copied: Record<string, number> | null = null;
  let differences: CopyDifferences = [];
  let copyMs: number | null = null;
  const targetHoldsTenant = (await target.db('tenants').where({ id: tenantId }).first('id')) !== undefined;
  if (targetHoldsTenant) {
    // A move that committed its copy and stopped before the switch: the source has been fenced since, so the copy
    // verified then is still the source's, and is verified again before the switch.
    differences = await tenantCopyDifferences(source.db, target.db, tenantId, tables);
  } else {
    const started = Date.now();
    try {
      copied = await source.db.transaction(async (snapshot) => {
        await snapshot.raw('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY');
        return target.db.transaction(async (trx) => {
          const rows = await copyTenantRows(snapshot, trx, tenantId, tables, deps.onTableCopied ?? (async () => {}));
          const found = await tenantCopyDifferences(snapshot, trx, tenantId, tables);
          if (found.length > 0) throw new CopyDiffers(found);
          return rows;
        });
      });
      copyMs = Date.now() - started;
    } catch (error) {
      if (!(error instanceof CopyDiffers)) throw error;
      differences = error.differences;
    }
  }

  if (differences.length > 0) {
    await fence.lower(tenantId);
    await directory.finishMove(tenantId, source.cluster);
    const restarted = await source.workflows.restartUnfinished(tenantId);
    log.error({ differences, restarted }, 'tenant move refused: the copy did not verify; the tenant stays on the source');
    return { outcome: 'refused', differences };
  }
  await directory.finishMove(tenantId, target.cluster);
  const restartedWorkflows = await target.workflows.restartUnfinished(tenantId);
  log.info({ copied, copyMs, stoppedWorkflows: stoppedWorkflows.length, restartedWorkflows }, 'tenant moved');
  return { outcome: 'moved', copied, copyMs, stoppedWorkflows, restartedWorkflows };
}
