import assert from 'node:assert/strict';
import { formatLsn, parseLsn } from '../../src/read-routing/lsn';
import { chooseReadSource, replicaLagMs, type ReplicaState } from '../../src/read-routing/read-source';

const lsn = (text: string) => {
  const parsed = parseLsn(text);
  if (parsed === undefined) throw new Error(`not a position: ${text}`);
  return parsed;
};

/** A replica that has received and replayed up to `replay` (lag 0) unless told otherwise. */
const replica = (replay: string, more: Partial<ReplicaState> = {}): ReplicaState => ({
  receiveLsn: lsn(replay),
  replayLsn: lsn(replay),
  sinceLastReplayMs: 60_000,
  ...more,
});

describe('where a read is served (the read-source policy)', () => {
  const maxLagMs = 5_000;

  it('WAL positions compare as numbers across their two halves, and print as Postgres spells them', () => {
    assert.ok(lsn('1/0') > lsn('0/FFFFFFFF'));
    assert.ok(lsn('0/16B3748') < lsn('0/16B3749'));
    assert.equal(formatLsn(lsn('16/b374d848')), '16/B374D848');
    assert.equal(formatLsn(lsn('0/0')), '0/0');
    for (const bad of ['', '16', '16/', '/1', '16/B374D848/1', 'G/1', '123456789/1', '1/2 OR 1=1'])
      assert.equal(parseLsn(bad), undefined, bad);
  });

  it('a replica that has replayed the caller’s last write and is within the lag bound serves the read', () => {
    assert.deepEqual(chooseReadSource({ replica: replica('0/3000'), readAfter: lsn('0/3000'), maxLagMs }), {
      source: 'replica',
      reason: 'replica_current',
    });
    assert.equal(chooseReadSource({ replica: replica('0/3000'), readAfter: lsn('0/2FFF'), maxLagMs }).source, 'replica');
    assert.equal(chooseReadSource({ replica: replica('0/3000'), readAfter: null, maxLagMs }).source, 'replica');
  });

  it('a replica behind the caller’s last write leaves the read to the primary, however small its lag', () => {
    assert.deepEqual(chooseReadSource({ replica: replica('0/3000'), readAfter: lsn('0/3001'), maxLagMs }), {
      source: 'primary',
      reason: 'behind_read_after',
    });
    assert.equal(chooseReadSource({ replica: replica('0/FFFFFFFF'), readAfter: lsn('1/0'), maxLagMs }).reason, 'behind_read_after');
  });

  it('a replica further behind than the lag bound leaves every read to the primary, with or without a position', () => {
    const lagging = replica('0/3000', { receiveLsn: lsn('0/5000'), sinceLastReplayMs: maxLagMs + 1 });
    assert.deepEqual(chooseReadSource({ replica: lagging, readAfter: null, maxLagMs }), { source: 'primary', reason: 'replica_lagging' });
    assert.equal(chooseReadSource({ replica: lagging, readAfter: lsn('0/1000'), maxLagMs }).reason, 'replica_lagging');
    const withinBound = replica('0/3000', { receiveLsn: lsn('0/5000'), sinceLastReplayMs: maxLagMs });
    assert.equal(chooseReadSource({ replica: withinBound, readAfter: null, maxLagMs }).source, 'replica');
  });

  it('an unreachable replica (or one that is no standby) leaves the read to the primary', () => {
    assert.deepEqual(chooseReadSource({ replica: null, readAfter: null, maxLagMs }), { source: 'primary', reason: 'replica_unreachable' });
    assert.equal(chooseReadSource({ replica: null, readAfter: lsn('0/1'), maxLagMs }).source, 'primary');
  });

  it('lag is the age of the last replayed commit while WAL waits to be replayed, and nothing when all is replayed', () => {
    // A quiet primary: nothing to replay, however old the last commit.
    assert.equal(replicaLagMs(replica('0/3000', { sinceLastReplayMs: 3_600_000 })), 0);
    // Replay paused (or slow) with WAL received: as old as the last commit replayed.
    assert.equal(replicaLagMs(replica('0/3000', { receiveLsn: lsn('0/4000'), sinceLastReplayMs: 1_234 })), 1_234);
    // Nothing received since it started (the primary out of its reach): as old as its last replayed commit.
    assert.equal(replicaLagMs(replica('0/3000', { receiveLsn: null, sinceLastReplayMs: 10 })), 10);
    // No commit replayed since it started: unknown, so as far behind as can be.
    assert.equal(replicaLagMs(replica('0/3000', { receiveLsn: lsn('0/4000'), sinceLastReplayMs: null })), Number.POSITIVE_INFINITY);
  });
});
