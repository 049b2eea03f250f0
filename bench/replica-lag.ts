// Replica lag sampled while a benchmark loads the primary: how far behind the replica's reads are, as the read router
// sees it (src/read-routing/read-source.ts: the age of the last replayed commit while received WAL waits), and in
// bytes of WAL the primary has written that the replica has not replayed.
import { createKnex, type Db } from '../src/db';
import { parseLsn } from '../src/read-routing/lsn';
import { replicaLagMs } from '../src/read-routing/read-source';
import { quantile } from './paced-sender';
import { fixed, type Row } from './report';

const SAMPLE_EVERY_MS = 50;

export interface LagSamples {
  lagMs: number[];
  bytesBehind: number[];
}

export interface ReplicaLagSampler {
  /** Starts sampling; `stop` ends it and returns the samples taken since. */
  start(): { stop(): Promise<LagSamples> };
  close(): Promise<void>;
}

/** A sampler of the replica at DATABASE_REPLICA_URL, or null when the benchmark runs without one. */
export function replicaLagSampler(primary: Db): ReplicaLagSampler | null {
  const url = process.env.DATABASE_REPLICA_URL;
  if (!url) return null;
  const replica = createKnex({ DATABASE_URL: url, DATABASE_POOL_MAX: 1 });
  async function sample(into: LagSamples): Promise<void> {
    const written = parseLsn(
      (await primary.raw<{ rows: Array<{ lsn: string }> }>('SELECT pg_current_wal_lsn()::text AS lsn')).rows[0]!.lsn,
    )!;
    const { rows } = await replica.raw<{ rows: Array<{ receive: string | null; replay: string; since_replay_ms: number | null }> }>(
      `SELECT pg_last_wal_receive_lsn()::text AS receive, pg_last_wal_replay_lsn()::text AS replay,
              (extract(epoch FROM clock_timestamp() - pg_last_xact_replay_timestamp()) * 1000)::float8 AS since_replay_ms`,
    );
    const row = rows[0]!;
    const replayLsn = parseLsn(row.replay)!;
    into.lagMs.push(
      replicaLagMs({ receiveLsn: row.receive ? parseLsn(row.receive)! : null, replayLsn, sinceLastReplayMs: row.since_replay_ms }),
    );
    into.bytesBehind.push(Math.max(0, Number(written - replayLsn)));
  }
  return {
    start() {
      const samples: LagSamples = { lagMs: [], bytesBehind: [] };
      let running = true;
      const loop = (async () => {
        while (running) {
          await sample(samples);
          await new Promise((resolve) => setTimeout(resolve, SAMPLE_EVERY_MS));
        }
      })();
      return {
        async stop() {
          running = false;
          await loop;
          return samples;
        },
      };
    },
    close: () => replica.destroy(),
  };
}

/** p50 / p99 / max of the lag and of the bytes behind, as table rows. */
export function lagRows(benchmark: string, label: string, samples: LagSamples): Row[] {
  const spread = (values: number[], format: (value: number) => string) =>
    [quantile(values, 0.5), quantile(values, 0.99), Math.max(...values)].map(format).join(' / ');
  return [
    {
      benchmark,
      measure: `${label}: replica lag p50 / p99 / max ms (${samples.lagMs.length} samples)`,
      value: spread(samples.lagMs, (ms) => fixed(ms)),
      target: '-',
      meets: null,
    },
    {
      benchmark,
      measure: `${label}: WAL not yet replayed p50 / p99 / max KiB`,
      value: spread(samples.bytesBehind, (bytes) => fixed(bytes / 1024)),
      target: '-',
      meets: null,
    },
  ];
}
