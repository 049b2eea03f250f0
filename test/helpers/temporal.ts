import { TestWorkflowEnvironment, type TimeSkippingTestWorkflowEnvironmentOptions } from '@temporalio/testing';
import { bundleWorkflowCode, NativeConnection, Worker, type WorkflowBundleOption } from '@temporalio/worker';
import { createLogger } from '../../src/logger';
import { registerSearchAttributes } from '../../src/main/register-search-attributes';
import { staleness, WORKFLOW_BUNDLE_PATH } from '../../src/main/workflow-bundle';
import { installTemporalRuntimeLogging } from '../../src/temporal/runtime-logging';
import { startTimeSkippingServer } from './time-skipping-server';

installTemporalRuntimeLogging(createLogger(process.env.LOG_LEVEL ?? 'silent', 'temporal-test'));

let bundle: Promise<WorkflowBundleOption> | undefined;

/**
 * The bundle the build wrote when it matches the compiled workflows (npm test builds before every run), as the worker
 * process uses it; else webpack, once per test process. Every worker of the process reuses it.
 */
export function workflowBundle(): Promise<WorkflowBundleOption> {
  bundle ??=
    staleness() === null
      ? Promise.resolve({ codePath: WORKFLOW_BUNDLE_PATH })
      : bundleWorkflowCode({
          workflowsPath: require.resolve('../../workflows'),
          logger: { trace() {}, debug() {}, info() {}, warn() {}, error() {}, log() {} },
        });
  return bundle;
}

/** Mocha's timeout for a `before` hook that starts an environment: a JVM's start on a loaded machine, then the connections. */
export const ENVIRONMENT_STARTUP_TIMEOUT_MS = 90_000;

/**
 * `TestWorkflowEnvironment.create`, which createTimeSkipping calls with a server it launches itself: called
 * here with the server we launched, as 'existing', keeping time skipping (private in the typings, public at
 * run time; the SDK version is pinned).
 */
const createEnvironment = (
  TestWorkflowEnvironment as unknown as {
    create(
      options: TimeSkippingTestWorkflowEnvironmentOptions & {
        server: { type: 'existing' };
        address: string;
        namespace: string;
        supportsTimeSkipping: true;
      },
    ): Promise<TestWorkflowEnvironment>;
  }
).create.bind(TestWorkflowEnvironment);

/** The time-skipping environment on a test server of our own; its teardown stops that server too. */
async function environmentOnOwnServer(executable: string): Promise<TestWorkflowEnvironment> {
  const server = await startTimeSkippingServer(executable);
  let env: TestWorkflowEnvironment;
  try {
    env = await createEnvironment({
      server: { type: 'existing' },
      address: server.address,
      namespace: 'default',
      supportsTimeSkipping: true,
    });
  } catch (error) {
    await server.stop();
    throw error;
  }
  const closeConnections = env.teardown.bind(env);
  return Object.assign(env, {
    async teardown(): Promise<void> {
      await closeConnections();
      await server.stop();
    },
  });
}

/**
 * The Java time-skipping test server (path from scripts/test.mjs), started by us and waited for as long
 * as the hook may run (see startTimeSkippingServer); without a path the SDK downloads its own, which
 * needs the internet. Custom search attributes are registered on every new environment.
 */
export async function timeSkippingEnvironment(): Promise<TestWorkflowEnvironment> {
  const path = process.env.TEMPORAL_TEST_SERVER;
  const env = path ? await environmentOnOwnServer(path) : await TestWorkflowEnvironment.createTimeSkipping();
  await registerSearchAttributes(env.client.connection, env.namespace ?? 'default');
  return env;
}

let sharedEnvironment: Promise<TestWorkflowEnvironment> | undefined;

/**
 * One time-skipping environment for every suite of the test process, started by the first that asks: a JVM's start
 * (5 s and more on this machine) once, not once a file. Each test keeps to task queues and workflow ids of its own and
 * reads times from the environment's clock, so what one test skips changes nothing another asserts, as between the
 * tests of one file. Its server is stopped when the process exits (startTimeSkippingServer).
 */
export function sharedTimeSkippingEnvironment(): Promise<TestWorkflowEnvironment> {
  sharedEnvironment ??= timeSkippingEnvironment().catch((error: unknown) => {
    sharedEnvironment = undefined;
    throw error;
  });
  return sharedEnvironment;
}

// A JVM that starts about a third faster (C1 only, serial GC): plenty for tests.
process.env.TEMPORAL_TEST_SERVER_JAVA_OPTS ??= '-XX:TieredStopAtLevel=1 -XX:+UseSerialGC';

/**
 * A worker with the given (usually mocked) activities, on the environment's connection. Its workflows run in this
 * thread (`debugMode`): a worker thread of its own, loading the SDK and the bundle again, took 2 to 5 s to start on
 * this machine for every test, and running in one changes nothing these tests assert. It also lifts the SDK's
 * deadlock timer, which only a workflow stuck in a synchronous loop would meet; the worker processes, and so every
 * other layer, run workflows in worker threads with it.
 */
export async function testWorker(
  connection: NativeConnection,
  taskQueue: string,
  activities: object,
  namespace = 'default',
): Promise<Worker> {
  return Worker.create({ connection, namespace, taskQueue, workflowBundle: await workflowBundle(), activities, debugMode: true });
}
