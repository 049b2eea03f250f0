import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './ports';

const run = promisify(execFile);

const ROLE = 'ledger';
const DATABASE = 'ledger';

export interface ThrowawayPostgres {
  /** The `ledger` database, migrated to the current schema. */
  url: string;
  /** An immediate shutdown: open connections break the way they would in a crash. */
  stop(): Promise<void>;
  /** Starts the same data directory on the same port again. */
  start(): Promise<void>;
  /** Stops the server and deletes its directory. */
  destroy(): Promise<void>;
}

/** The newest installed server, e.g. /usr/lib/postgresql/15/bin. */
function serverBinDir(): string {
  const base = '/usr/lib/postgresql';
  const versions = existsSync(base) ? readdirSync(base).filter((version) => existsSync(path.join(base, version, 'bin', 'pg_ctl'))) : [];
  const newest = versions.sort((a, b) => Number(b) - Number(a))[0];
  if (!newest) throw new Error(`no PostgreSQL server under ${base}`);
  return path.join(base, newest, 'bin');
}

/**
 * A PostgreSQL server of its own (fresh data directory, free port, own socket directory) for tests
 * that stop the database, so the one a running `npm start` or the rest of the test run uses is never touched.
 * Postgres refuses to run as root: as root, the server runs as the `postgres` user, which owns the directory.
 */
export async function startThrowawayPostgres(): Promise<ThrowawayPostgres> {
  const bin = serverBinDir();
  const asRoot = process.getuid?.() === 0;
  const root = mkdtempSync(path.join(os.tmpdir(), 'ledger-throwaway-pg-'));
  const dataDir = path.join(root, 'data');
  const socketDir = path.join(root, 'socket');
  const logFile = path.join(root, 'server.log');
  mkdirSync(socketDir);
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
    chownSync(root, uid, gid);
    chownSync(socketDir, uid, gid);
  }
  const port = await freePort();
  const url = `postgres://${ROLE}:${ROLE}@127.0.0.1:${port}/${DATABASE}`;

  const asServerUser = (tool: string, args: string[]): [string, string[]] =>
    asRoot ? ['runuser', ['-u', 'postgres', '--', path.join(bin, tool), ...args]] : [path.join(bin, tool), args];
  const pgCtl = async (...args: string[]): Promise<void> => {
    const [command, argv] = asServerUser('pg_ctl', ['-D', dataDir, '-w', '-t', '30', ...args]);
    // cwd "/" because the postgres user cannot read the caller's working directory (e.g. under /root).
    await run(command, argv, { cwd: '/', timeout: 60_000 });
  };
  // fsync off: durability across an OS crash is not what these tests exercise, and it makes restarts fast.
  const serverOptions = `-p ${port} -k ${socketDir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`;
  const start = (): Promise<void> => pgCtl('-l', logFile, '-o', serverOptions, 'start');
  const stop = (): Promise<void> => pgCtl('-m', 'immediate', 'stop');

  // A test process that dies without its after hooks must not leave a server behind.
  const stopOnExit = (): void => {
    const [command, argv] = asServerUser('pg_ctl', ['-D', dataDir, '-m', 'immediate', 'stop']);
    spawnSync(command, argv, { cwd: '/', stdio: 'ignore', timeout: 10_000 });
  };

  let destroyed = false;
  const destroy = async (): Promise<void> => {
    if (destroyed) return;
    destroyed = true;
    process.off('exit', stopOnExit);
    await stop().catch(() => undefined);
    rmSync(root, { recursive: true, force: true });
  };
  try {
    const [initCommand, initArgs] = asServerUser('initdb', ['-D', dataDir, '-U', ROLE, '--auth=trust', '--encoding=UTF8', '--no-sync']);
    await run(initCommand, initArgs, { cwd: '/', timeout: 120_000 });
    await start();
    process.once('exit', stopOnExit);
    await run(path.join(bin, 'createdb'), ['-h', '127.0.0.1', '-p', String(port), '-U', ROLE, DATABASE], { timeout: 30_000 });
    await run(process.execPath, [path.resolve(__dirname, '../../src/main/cli.js'), 'db:migrate'], {
      env: { ...process.env, DATABASE_URL: url, LOG_LEVEL: 'silent' },
      timeout: 60_000,
    });
  } catch (error) {
    await destroy();
    throw error;
  }
  return { url, stop, start, destroy };
}
