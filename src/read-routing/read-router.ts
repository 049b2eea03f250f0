import { AsyncLocalStorage } from 'node:async_hooks';
import { isRetryableDatabaseError, type Db } from '../db';
import type { Logger } from '../logger';
import { withTimeout } from '../timeout';
import { parseLsn, type Lsn } from './lsn';
import { chooseReadSource, type ReadSourceDecision, type ReplicaState } from './read-source';
import { createWritePositionsRepo } from './write-positions.repo';

/** A probe of the replica is reused this long: replay only moves forward, so an older replay position is a safe bound. */
const STATE_TTL_MS = 100;
/** A replica that failed a probe or a read is left alone this long before it is probed again. */
const DOWN_FOR_MS = 1_000;
/** A probe that takes longer counts as a replica down. */
const PROBE_TIMEOUT_MS = 500;
/** Postgres's answer to a write on a hot standby. */
const READ_ONLY_TRANSACTION = '25006';

const STATE_SQL = `SELECT pg_is_in_recovery() AS standby,
  pg_last_wal_receive_lsn()::text AS receive,
  pg_last_wal_replay_lsn()::text AS replay,
  (extract(epoch FROM clock_timestamp() - pg_last_xact_replay_timestamp()) * 1000)::float8 AS since_replay_ms`;

interface StateRow {
  standby: boolean;
  receive: string | null;
  replay: string | null;
  since_replay_ms: number | null;
}

export interface ReadRouter {
  /**
   * The connections of the reads that may be served by a replica (statements, books, balances, lists). It is the
   * primary everywhere except inside onReplica; without a replica it is the primary's knex itself.
   */
  readonly db: Db;
  /** Whether a replica is configured: without one, nothing here runs on any request. */
  readonly replicated: boolean;
  /** Where a read must go: `readAfter` is the position the caller presented; without one, its tenant's last write bounds it. */
  choose(request: { readAfter: Lsn | null; tenantId: string | null }): Promise<ReadSourceDecision>;
  /** Runs `work` with `db` on the replica. */
  onReplica<T>(work: () => Promise<T>): Promise<T>;
  /** A read on the replica failed with `error`: whether to make it again on the primary (the replica is then left alone a while when it is down). */
  replicaFailed(error: unknown): boolean;
  /** The tenant has just committed a write: records its position and returns it (the caller's `X-Read-After`). */
  wrote(tenantId: string): Promise<Lsn>;
}

/**
 * A knex that is the replica's inside `scope` and the primary's outside it, so a service built on it needs no
 * knowledge of where its reads go: only the routes whose reads may come from a replica open the scope.
 */
function routedDb(primary: Db, scope: AsyncLocalStorage<Db>): Db {
  const current = (): Db => scope.getStore() ?? primary;
  return new Proxy(primary, {
    apply: (_target, _this, args: unknown[]) => Reflect.apply(current(), undefined, args),
    get: (_target, property) => {
      const db = current();
      const value: unknown = Reflect.get(db, property, db);
      return typeof value === 'function' ? value.bind(db) : value;
    },
  });
}

function lsnOrNull(text: string | null): Lsn | null {
  return text === null ? null : (parseLsn(text) ?? null);
}

export function createReadRouter(deps: { primary: Db; replica?: Db; maxLagMs: number; logger: Logger }): ReadRouter {
  const { primary, replica, maxLagMs, logger } = deps;
  const positions = createWritePositionsRepo(primary);
  if (!replica) {
    return {
      db: primary,
      replicated: false,
      choose: async () => ({ source: 'primary', reason: 'replica_unreachable' }),
      onReplica: (work) => work(),
      replicaFailed: () => false,
      wrote: (tenantId) => positions.record(tenantId),
    };
  }
  const scope = new AsyncLocalStorage<Db>();
  let cached: { state: ReplicaState | null; at: number } | undefined;
  let probing: Promise<ReplicaState | null> | undefined;
  let downUntil = 0;

  function markDown(error: unknown): void {
    if (Date.now() >= downUntil) logger.warn({ err: error }, 'read replica unavailable: reads go to the primary');
    downUntil = Date.now() + DOWN_FOR_MS;
    cached = undefined;
  }

  async function probe(): Promise<ReplicaState | null> {
    try {
      const { rows } = await withTimeout(replica!.raw<{ rows: StateRow[] }>(STATE_SQL), PROBE_TIMEOUT_MS, 'read replica probe');
      const row = rows[0]!;
      const replayLsn = lsnOrNull(row.replay);
      // A server out of recovery (promoted, or a primary named by mistake) follows no one: it is no replica.
      const state =
        row.standby && replayLsn !== null
          ? { receiveLsn: lsnOrNull(row.receive), replayLsn, sinceLastReplayMs: row.since_replay_ms }
          : null;
      cached = { state, at: Date.now() };
      return state;
    } catch (error) {
      markDown(error);
      return null;
    }
  }

  /** The replica's state: a recent probe's, or a new one's (`fresh`: always a probe started now or already under way). */
  async function stateOf(fresh: boolean): Promise<ReplicaState | null> {
    if (Date.now() < downUntil) return null;
    if (!fresh && cached && Date.now() - cached.at < STATE_TTL_MS) return cached.state;
    probing ??= probe().finally(() => {
      probing = undefined;
    });
    return probing;
  }

  return {
    db: routedDb(primary, scope),
    replicated: true,
    async choose({ readAfter, tenantId }) {
      const bound = readAfter ?? (tenantId ? await positions.of(tenantId) : null);
      let state = await stateOf(false);
      // A recent probe may predate the write: ask the replica again before sending the read to the primary.
      if (state && bound !== null && state.replayLsn < bound) state = await stateOf(true);
      return chooseReadSource({ replica: state, readAfter: bound, maxLagMs });
    },
    onReplica: (work) => scope.run(replica, work),
    replicaFailed(error) {
      if ((error as { code?: string })?.code === READ_ONLY_TRANSACTION) {
        logger.error({ err: error }, 'a read served by the replica tried to write: made again on the primary');
        return true;
      }
      if (!isRetryableDatabaseError(error)) return false;
      markDown(error);
      return true;
    },
    wrote: (tenantId) => positions.record(tenantId),
  };
}
