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
  const env = await TestWorkflowEnvironment.createTimeSkipping(path ? { server: { executable: { type: 'existing-path', path } } } : undefined);
  await registerSearchAttributes(env.client.connection, env.namespace ?? 'default');
  return env;
}

/** A worker with the given (usually mocked) activities, on the environment's connection. */
export async function testWorker(connection: NativeConnection, taskQueue: string, activities: object, namespace = 'default'): Promise<Worker> {
  return Worker.create({ connection, namespace, taskQueue, workflowBundle: await workflowBundle(), activities });
}
