import { execFile } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface LocalReplica {
  /** The test run's database on the replica (the primary's DATABASE_URL on the replica's port). */
  url: string;
  /** Stops (true) or resumes (false) the replica's replay of the primary's WAL: it keeps receiving it meanwhile. */
  pauseReplay(paused: boolean): Promise<void>;
}

/**
 * The streaming replica of the test run's cluster, made (or started) by the provisioning `npm start` uses
 * (scripts/infra/postgres.mjs ensureReplica): quick when it already runs. It follows every database of the primary,
 * this run's too. Replay is paused and resumed as the postgres superuser over the local socket.
 */
export async function localReplica(): Promise<LocalReplica> {
  const provisioning = pathToFileURL(path.resolve(__dirname, '../../../scripts/infra/postgres.mjs')).href;
  const script = `import { ensureReplica } from ${JSON.stringify(provisioning)};
process.stdout.write(JSON.stringify(await ensureReplica()));`;
  // ensureReplica replicates the cluster of DATABASE_URL (this run's database), on the loopback.
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], { env: process.env, timeout: 10 * 60_000 });
  const { port } = JSON.parse(stdout) as { port: number };
  const url = new URL(process.env.DATABASE_URL!);
  url.port = String(port);
  const database = url.pathname.slice(1);
  return {
    url: url.toString(),
    async pauseReplay(paused) {
      const sql = paused ? 'SELECT pg_wal_replay_pause()' : 'SELECT pg_wal_replay_resume()';
      await run(
        'runuser',
        ['-u', 'postgres', '--', 'psql', '-X', '-p', String(port), '-d', database, '-v', 'ON_ERROR_STOP=1', '-tAc', sql],
        {
          cwd: '/',
          timeout: 30_000,
        },
      );
    },
  };
}
