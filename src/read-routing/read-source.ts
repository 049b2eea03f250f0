import type { Lsn } from './lsn';

/** Where a read is served from. */
export type ReadSource = 'replica' | 'primary';

/** What a probe of the replica found (null: it did not answer, or it is no standby). */
export interface ReplicaState {
  /** The last WAL position it has received from the primary (null before it received any since it started). */
  receiveLsn: Lsn | null;
  /** The last position it has replayed: every commit up to here is visible on it. */
  replayLsn: Lsn;
  /** How long ago the last transaction it replayed was committed on the primary (null: none replayed since it started). */
  sinceLastReplayMs: number | null;
}

export interface ReadSourceDecision {
  source: ReadSource;
  reason: 'replica_unreachable' | 'replica_lagging' | 'behind_read_after' | 'replica_current';
}

/**
 * How far the replica's data is behind the primary's, in time. WAL received but not yet replayed is as old as the
 * last transaction replayed; with nothing left to replay, it is current however long the primary has been quiet (the
 * age of the last replayed commit alone would call an idle replica behind).
 */
export function replicaLagMs(state: ReplicaState): number {
  const caughtUp = state.receiveLsn !== null && state.replayLsn >= state.receiveLsn;
  if (caughtUp) return 0;
  return state.sinceLastReplayMs ?? Number.POSITIVE_INFINITY;
}

/**
 * Whether a read may be served by the replica. `readAfter` is the position the caller must see: its own last write
 * (the `X-Read-After` it was given, or its tenant's last recorded write). The replica serves the read only when it
 * answered, has replayed at least that far, and is no more than `maxLagMs` behind; otherwise the primary does.
 */
export function chooseReadSource(input: { replica: ReplicaState | null; readAfter: Lsn | null; maxLagMs: number }): ReadSourceDecision {
  const { replica, readAfter, maxLagMs } = input;
  if (!replica) return { source: 'primary', reason: 'replica_unreachable' };
  if (readAfter !== null && replica.replayLsn < readAfter) return { source: 'primary', reason: 'behind_read_after' };
  if (replicaLagMs(replica) > maxLagMs) return { source: 'primary', reason: 'replica_lagging' };
  return { source: 'replica', reason: 'replica_current' };
}
