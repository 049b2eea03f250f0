import { spawn, type ChildProcess } from 'node:child_process';
import { connect } from 'node:net';
import { runnableDeadline } from './deadline';
import { freePort } from './ports';

export interface RunningTestServer {
  address: string;
  stop(): Promise<void>;
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ port, host: '127.0.0.1' });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}

/**
 * Starts `<executable> <port>`, exactly as the SDK would, and waits until it listens, for as long as the
 * hook that starts it may run: the SDK's own launch gives the server a fixed 5 s (sdk-core's ephemeral
 * server, no option in @temporalio/testing 1.24), which a JVM starting on a loaded machine misses. (No
 * --enable-time-skipping: the environment's client unlocks skipping only while it awaits a result; with
 * the flag, time runs ahead before a worker polls and workflows time out.)
 */
export async function startTimeSkippingServer(executable: string): Promise<RunningTestServer> {
  const port = await freePort();
  const child = spawn(executable, [String(port)], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4_000);
  });
  // The server never outlives the test process, whatever ends it.
  const killOnExit = (): void => void child.kill('SIGKILL');
  process.once('exit', killOnExit);
  const stop = async (): Promise<void> => {
    process.removeListener('exit', killOnExit);
    await stopProcess(child);
  };

  while (!(await accepts(port))) {
    if (child.exitCode !== null || child.signalCode !== null) {
      await stop();
      throw new Error(`the time-skipping test server exited (${child.exitCode ?? child.signalCode}) before listening:\n${stderr}`);
    }
    if (Date.now() > runnableDeadline()) {
      await stop();
      throw new Error(`the time-skipping test server did not listen on port ${port} before the hook's time ran out:\n${stderr}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return { address: `127.0.0.1:${port}`, stop };
}
