import { TestWorkflowEnvironment } from '@temporalio/testing';
import { bundleWorkflowCode, NativeConnection, Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { createLogger } from '../../src/logger';
import { registerSearchAttributes } from '../../src/temporal/register-search-attributes';
import { installTemporalRuntimeLogging } from '../../src/temporal/runtime-logging';

installTemporalRuntimeLogging(createLogger(process.env.LOG_LEVEL ?? 'silent', 'temporal-test'));

let bundle: Promise<WorkflowBundleWithSourceMap> | undefined;

/** Webpack runs once per test process; every worker reuses the bundle. */
export function workflowBundle(): Promise<WorkflowBundleWithSourceMap> {
  bundle ??= bundleWorkflowCode({ workflowsPath: require.resolve('../../workflows'), logger: { trace() {}, debug() {}, info() {}, warn() {}, error() {}, log() {} } });
  return bundle;
}

/**
 * The Java time-skipping test server (path from scripts/test.mjs); without it the SDK downloads its
 * own, which needs the internet. Custom search attributes are registered on every new environment.
 */
export async function timeSkippingEnvironment(): Promise<TestWorkflowEnvironment> {
  const path = process.env.TEMPORAL_TEST_SERVER;
  const env = await startingAgain(() => TestWorkflowEnvironment.createTimeSkipping(path ? { server: { executable: { type: 'existing-path', path } } } : undefined));
  await registerSearchAttributes(env.client.connection, env.namespace ?? 'default');
  return env;
}

// A JVM that starts about a third faster (C1 only, serial GC): plenty for tests, and inside the SDK's 5 s.
process.env.TEMPORAL_TEST_SERVER_JAVA_OPTS ??= '-XX:TieredStopAtLevel=1 -XX:+UseSerialGC';

/** The SDK gives the Java server 5 s to listen; on a loaded machine its JVM can take longer, so try again. */
async function startingAgain<T>(start: () => Promise<T>, attempts = 3): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await start();
    } catch (error) {
      if (attempt >= attempts || !/did not start within/.test(String((error as Error)?.message))) throw error;
    }
  }
}

/** A worker with the given (usually mocked) activities, on the environment's connection. */
export async function testWorker(connection: NativeConnection, taskQueue: string, activities: object, namespace = 'default'): Promise<Worker> {
  return Worker.create({ connection, namespace, taskQueue, workflowBundle: await workflowBundle(), activities });
}
