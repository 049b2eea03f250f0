import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { temporal as temporalProto } from '@temporalio/proto';
import { createTemporalClient } from '../../src/temporal/client';
import { eventually } from './http';
import { freePort } from './ports';
import { convergenceCheckScheduleId } from '../../src/contracts/convergence-check.contract';
import { reconciliationScheduleId } from '../../src/contracts/reconciliation.contract';
import { retentionScheduleId } from '../../src/contracts/retention.contract';

const ENTRYPOINTS = { api: 'api.js', worker: 'worker.js', sandbox: 'sandbox.js', cli: 'cli.js' } as const;
type ServiceName = Exclude<keyof typeof ENTRYPOINTS, 'cli'>;

export interface RunningSystem {
  apiUrl: string;
  sandboxUrl: string;
  /** The API's /metrics (the whole pipeline). */
  metricsUrl: string;
  /** Each worker process's /metrics, from the ports they logged. */
  workerMetricsUrls(): string[];
  env: NodeJS.ProcessEnv;
  logs: Record<ServiceName, string[]>;
  start(name: ServiceName): Promise<void>;
  /** SIGKILL: the process gets no chance to clean up. */
  kill(name: ServiceName): Promise<void>;
  cli(...args: string[]): Promise<string>;
  /** The CLI with `stdin` piped in (user:create reads its password there). */
  cliWithStdin(stdin: string, ...args: string[]): Promise<string>;
  pid(name: ServiceName): number | undefined;
  stop(): Promise<void>;
}

/**
 * The real processes `npm start` runs (API, worker, sandbox), from the compiled build, on free ports,
 * against the test database and the dev server, on a task queue of their own. With `sandboxOf`, another host
 * of that system: only an API and a worker, on ports of their own, calling that system's sandbox (give both the
 * same DATABASE_URL and TEMPORAL_TASK_QUEUE).
 */
export async function startSystem(
  overrides: Record<string, string> = {},
  { sandboxOf }: { sandboxOf?: RunningSystem } = {},
): Promise<RunningSystem> {
  const port = await freePort();
  const sandboxPort = sandboxOf ? Number(new URL(sandboxOf.sandboxUrl).port) : await freePort();
  const metricsPort = await freePort();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    HOST: '127.0.0.1',
    PORT: String(port),
    SANDBOX_PORT: String(sandboxPort),
    PROVIDER_BASE_URL: `http://127.0.0.1:${sandboxPort}`,
    IDENTITY_VERIFICATION_URL: `http://127.0.0.1:${sandboxPort}/identity/nin`,
    SANDBOX_WEBHOOK_URL: `http://127.0.0.1:${port}/webhooks/provider`,
    METRICS_HOST: '127.0.0.1',
    METRICS_PORT: String(metricsPort),
    // Any free port for each worker process: workerMetricsUrls() reads them from the workers' logs.
    WORKER_METRICS_PORT: '0',
    TEMPORAL_TASK_QUEUE: `${process.env.TEMPORAL_TASK_QUEUE ?? 'e2e'}-${randomBytes(4).toString('hex')}`,
    LOG_LEVEL: 'info',
    ...overrides,
  };
  const children = new Map<ServiceName, ChildProcess>();
  const temporal = createTemporalClient({
    TEMPORAL_ADDRESS: env.TEMPORAL_ADDRESS!,
    TEMPORAL_NAMESPACE: env.TEMPORAL_NAMESPACE ?? 'default',
  });
  const logs: Record<ServiceName, string[]> = { api: [], worker: [], sandbox: [] };
  const dist = path.resolve(__dirname, '../../src/main');

  async function start(name: ServiceName): Promise<void> {
    // CPU_PROFILE_DIR=<dir> writes a V8 CPU profile of each process when it exits (for benchmark analysis),
    // in <dir>/<name>/ (a process group's copies inherit the flags and write one profile each, named by pid).
    const profiling = env.CPU_PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${path.join(env.CPU_PROFILE_DIR, name)}`] : [];
    const child = spawn(process.execPath, [...profiling, '--enable-source-maps', path.join(dist, ENTRYPOINTS[name])], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.set(name, child);
    for (const stream of [child.stdout!, child.stderr!]) createInterface({ input: stream }).on('line', (line) => logs[name].push(line));
    const exited = (): boolean => child.exitCode !== null || child.signalCode !== null;
    await eventually(
      async () => {
        if (exited()) throw new Error(`${name} exited:\n${logs[name].slice(-20).join('\n')}`);
        return isReady(name, child.pid!);
      },
      { intervalMs: 200, what: `${name} to start` },
    );
  }

  /** Readiness without relying on log levels: HTTP for the servers, a live poller for the worker. */
  async function isReady(name: ServiceName, pid: number): Promise<boolean> {
    if (name === 'worker') {
      const { pollers } = await temporal.workflowService.describeTaskQueue({
        namespace: env.TEMPORAL_NAMESPACE ?? 'default',
        taskQueue: { name: env.TEMPORAL_TASK_QUEUE! },
        taskQueueType: temporalProto.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
      });
      // The SDK's default worker identity is "<pid>@<host>": a poller of the process just started; the
      // copies of a worker group are "<primary pid>.<copy>/…".
      return (pollers ?? []).some((poller) => poller.identity?.startsWith(`${pid}@`) || poller.identity?.startsWith(`${pid}.`));
    }
    const url = name === 'api' ? `http://127.0.0.1:${port}/healthz` : `http://127.0.0.1:${sandboxPort}/healthz`;
    return fetch(url).then(
      (response) => response.ok,
      () => false,
    );
  }

  async function stopChild(name: ServiceName, signal: NodeJS.Signals): Promise<void> {
    const child = children.get(name);
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, 'exit');
    child.kill(signal);
    await exited;
  }

  async function runCli(stdin: string | null, args: string[]): Promise<string> {
    const child = spawn(process.execPath, [path.join(dist, ENTRYPOINTS.cli), ...args], {
      env,
      stdio: [stdin === null ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    if (stdin !== null) child.stdin!.end(stdin);
    let out = '';
    let err = '';
    child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()));
    const [code] = (await once(child, 'exit')) as [number];
    if (code !== 0) throw new Error(`cli ${args.join(' ')} exited ${code}: ${err}${out}`);
    return out;
  }

  if (!sandboxOf) await start('sandbox');
  await Promise.all([start('api'), start('worker')]);

  return {
    apiUrl: `http://127.0.0.1:${port}`,
    sandboxUrl: `http://127.0.0.1:${sandboxPort}`,
    metricsUrl: `http://127.0.0.1:${metricsPort}/metrics`,
    // The last port each worker process logged (a copy of a group that was restarted logs a new one).
    workerMetricsUrls: () => {
      const byProcess = new Map<string, string>();
      for (const line of logs.worker) {
        const port = /"metricsPort":(\d+).*"msg":"worker running"/.exec(line)?.[1];
        if (port) byProcess.set(/"process":(\d+)/.exec(line)?.[1] ?? 'alone', `http://127.0.0.1:${port}/metrics`);
      }
      return [...byProcess.values()];
    },
    env,
    logs,
    start,
    kill: (name) => stopChild(name, 'SIGKILL'),
    pid: (name) => children.get(name)?.pid,
    cli: (...args: string[]) => runCli(null, args),
    cliWithStdin: (stdin: string, ...args: string[]) => runCli(stdin, args),
    /** Stops the processes and deletes the Schedules (convergence check, retention, reconciliation), which would otherwise outlive this test run. */
    async stop() {
      await Promise.all([...children.keys()].map((name) => stopChild(name, 'SIGTERM')));
      for (const scheduleId of [
        convergenceCheckScheduleId(env.TEMPORAL_TASK_QUEUE!),
        retentionScheduleId(env.TEMPORAL_TASK_QUEUE!),
        reconciliationScheduleId(env.TEMPORAL_TASK_QUEUE!),
      ]) {
        await temporal.schedule
          .getHandle(scheduleId)
          .delete()
          .catch(() => undefined);
      }
      await temporal.connection.close();
    },
  };
}
