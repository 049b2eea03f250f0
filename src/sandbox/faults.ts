import type { Context, Next } from 'koa';
import type { Config } from '../config';
import type { Scheduler } from './scheduler';
import { SandboxHttpError } from './sandbox-http';
import type { FaultSettings, SandboxState } from './sandbox.state';

export function faultsFromConfig(config: Config): FaultSettings {
  return { failureRate: config.SANDBOX_FAILURE_RATE, latencyMs: config.SANDBOX_LATENCY, routes: [] };
}

/** Control routes stay reliable so tests can always steer and inspect the sandbox. */
function isControlPath(path: string): boolean {
  return path === '/sandbox' || path.startsWith('/sandbox/') || path === '/healthz';
}

function appliesTo(settings: FaultSettings, path: string): boolean {
  if (isControlPath(path)) return false;
  return settings.routes.length === 0 || settings.routes.some((prefix) => path.startsWith(prefix));
}

/** Added latency first, then the failure draw; an injected failure happens before anything is read or recorded. */
export function injectFaults(state: SandboxState, scheduler: Scheduler) {
  return async (ctx: Context, next: Next): Promise<void> => {
    const settings = state.faults;
    if (appliesTo(settings, ctx.path)) {
      if (settings.latencyMs > 0) await scheduler.sleep(settings.latencyMs);
      if (settings.failureRate > 0 && Math.random() < settings.failureRate) {
        throw new SandboxHttpError(503, '503', 'service temporarily unavailable (injected fault)');
      }
    }
    await next();
  };
}
