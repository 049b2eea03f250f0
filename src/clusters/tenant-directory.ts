import type { Db } from '../db';
import type { Logger } from '../logger';
import { listenForNotifications, type NotificationListener } from '../notification-listener';
import { createTenantPlacementsRepo, type TenantPlacementsRepo } from './tenant-placements.repo';

/** Notified (in the writing transaction) whenever a placement changes: every process forgets what it cached. */
export const PLACEMENTS_CHANGED_CHANNEL = 'tenant_placements_changed';

/** A cached placement is read again after this long even if no notification came. */
const PLACEMENT_TTL_MS = 5_000;
/** Placements a process keeps in memory at most (a busy API sees its active tenants many times a second). */
const MAX_CACHED = 100_000;

export interface TenantPlacement {
  cluster: string;
  /** A move is copying the tenant: its requests are refused with 503 until it ends. */
  moving: boolean;
}

export class UnknownClusterError extends Error {}

/**
 * Which cluster each tenant lives on, kept in the control database's `tenant_placements`. A tenant with no row lives
 * on the first cluster. Reads are cached in memory while the process hears PLACEMENTS_CHANGED_CHANNEL (and for
 * PLACEMENT_TTL_MS at most); while the listener is down every read goes to the control database, so a move's fence
 * holds within one notification, never a stale cache.
 */
export function createTenantDirectory(deps: { db: Db; clusters: readonly string[]; logger: Logger; now?: () => number }) {
  const { db, clusters, logger } = deps;
  const now = deps.now ?? Date.now;
  const firstCluster = clusters[0]!;
  const cache = new Map<string, { placement: TenantPlacement; until: number }>();
  let live = false;
  // A read that began before a notification must not cache what it read after the cache was cleared.
  let generation = 0;

  function forget(): void {
    generation += 1;
    cache.clear();
  }

  function knownCluster(cluster: string): string {
    if (!clusters.includes(cluster)) throw new UnknownClusterError(`no cluster named "${cluster}" (clusters: ${clusters.join(', ')})`);
    return cluster;
  }

  async function read(tenantId: string): Promise<TenantPlacement> {
    const row = await createTenantPlacementsRepo(db).find(tenantId);
    return row ? { cluster: row.cluster, moving: row.movingSince !== null } : { cluster: firstCluster, moving: false };
  }

  async function change(tenantId: string, write: (placements: TenantPlacementsRepo) => Promise<void>): Promise<void> {
    await db.transaction(async (trx) => {
      const placements = createTenantPlacementsRepo(trx);
      await write(placements);
      await placements.notifyChanged(PLACEMENTS_CHANGED_CHANNEL, tenantId);
    });
    forget();
  }

  async function placementOf(tenantId: string): Promise<TenantPlacement> {
    const cached = cache.get(tenantId);
    if (cached && cached.until > now()) return cached.placement;
    const began = generation;
    const placement = await read(tenantId);
    if (live && began === generation) {
      if (cache.size >= MAX_CACHED) cache.clear();
      cache.set(tenantId, { placement, until: now() + PLACEMENT_TTL_MS });
    }
    return placement;
  }

  return {
    placementOf,

    clusterOf: async (tenantId: string): Promise<string> => (await placementOf(tenantId)).cluster,

    /** A new tenant's cluster, written before any of its rows exist there; placing it again on the same cluster is a no-op. */
    async place(tenantId: string, cluster: string): Promise<void> {
      knownCluster(cluster);
      await change(tenantId, (placements) => placements.place(tenantId, cluster));
    },

    /**
     * Reserves a new tenant's account-reference prefix across every cluster (the front routes webhooks by it): false
     * when a tenant placed through the directory holds it already. Tenants from before the directory are not here:
     * the caller checks the clusters too.
     */
    reserveRefPrefix: (tenantId: string, refPrefix: string): Promise<boolean> =>
      createTenantPlacementsRepo(db).reserveRefPrefix(tenantId, refPrefix),

    /** Fences the tenant for a move: from the notification on, every process answers its requests 503. Returns where it lives now. */
    async beginMove(tenantId: string): Promise<TenantPlacement> {
      const current = await read(tenantId);
      await change(tenantId, (placements) => placements.markMoving(tenantId, current.cluster));
      return { cluster: current.cluster, moving: true };
    },

    /** Ends a move (or abandons it, naming the cluster it was on): the tenant lives on `cluster` and is served again. */
    async finishMove(tenantId: string, cluster: string): Promise<void> {
      knownCluster(cluster);
      await change(tenantId, (placements) => placements.settle(tenantId, cluster));
    },

    /** Ends the directory's pool (the directory owns the control database's connections it was given). */
    close: (): Promise<void> => db.destroy(),

    /** Keeps the cache: without it running, every lookup reads the control database. */
    listen(): NotificationListener {
      return listenForNotifications({
        db,
        channel: PLACEMENTS_CHANGED_CHANNEL,
        logger: logger.child({ component: 'tenant-directory' }),
        onNotification: forget,
        onLive: (next) => {
          live = next;
          forget();
        },
      });
    },
  };
}

export type TenantDirectory = ReturnType<typeof createTenantDirectory>;
