import type { Context, Next } from 'koa';
import type { Config } from '../config';
import { baseReference } from './attempt-references';
import type { Scheduler } from './scheduler';
import { SandboxHttpError } from './sandbox-http';
import type { FaultSettings, SandboxState } from './sandbox.state';
import { outageKey, type Outage } from './transfer-profiles';

export function faultsFromConfig(config: Config): FaultSettings {
  return {
    failureRate: config.SANDBOX_FAILURE_RATE,
    throttleRate: config.SANDBOX_THROTTLE_RATE,
    retryAfterSeconds: Math.ceil(config.SANDBOX_RETRY_AFTER / 1000),
    latencyMs: config.SANDBOX_LATENCY,
    routes: [],
  };
}

/** Control routes stay reliable so tests can always steer and inspect the sandbox. */
function isControlPath(path: string): boolean {
  return path === '/sandbox' || path.startsWith('/sandbox/') || path === '/healthz';
}

function appliesTo(settings: FaultSettings, path: string): boolean {
  if (isControlPath(path)) return false;
  return settings.routes.length === 0 || settings.routes.some((prefix) => path.startsWith(prefix));
}

export function throttled(retryAfterSeconds: number): SandboxHttpError {
  return new SandboxHttpError(429, '429', 'too many requests', { headers: { 'Retry-After': String(retryAfterSeconds) } });
}

/**
 * Added latency first, then the failure draws (503, then 429); an injected failure happens before
 * anything is recorded.
 */
export function injectFaults(state: SandboxState, scheduler: Scheduler) {
  return async (ctx: Context, next: Next): Promise<void> => {
    const settings = state.faults;
    if (appliesTo(settings, ctx.path)) {
      if (settings.latencyMs > 0) await scheduler.sleep(settings.latencyMs);
      if (settings.failureRate > 0 && Math.random() < settings.failureRate) {
        throw new SandboxHttpError(503, '503', 'service temporarily unavailable (injected fault)');
      }
      if (settings.throttleRate > 0 && Math.random() < settings.throttleRate) throw throttled(settings.retryAfterSeconds);
    }
    await next();
  };
}

/**
 * The reference a provider call concerns: a lookup's transactionRef (a transfer id resolves to its merchantTxRef) or a submit's
 * merchantTxRef.
 */
function referenceOf(ctx: Context, state: SandboxState): { reference: string; route: 'submit' | 'lookup' } | null {
  if (ctx.method === 'GET' && ctx.path === '/v1/transactions/accounts/single' && typeof ctx.query.transactionRef === 'string') {
    const ref = ctx.query.transactionRef;
    return { reference: state.transfers.get(ref)?.merchantTxRef ?? ref, route: 'lookup' };
  }
  const body = ctx.request.body as { merchantTxRef?: unknown } | undefined;
  if (ctx.method === 'POST' && ctx.path === '/v2/transfers/bank' && typeof body?.merchantTxRef === 'string')
    return { reference: body.merchantTxRef, route: 'submit' };
  return null;
}

/** Records every transfer call (answered or failed) under its base reference, before any fault is injected. */
export function logTransferCalls(state: SandboxState) {
  return async (ctx: Context, next: Next): Promise<void> => {
    const call = referenceOf(ctx, state);
    if (call) {
      const base = baseReference(call.reference);
      const calls = state.callsByBase.get(base) ?? [];
      calls.push({ atMs: Date.now(), route: call.route });
      state.callsByBase.set(base, calls);
    }
    await next();
  };
}

/** A per-transfer outage (profile `outage`): its window opens at the first call about the transfer or destination. */
export function failDuringOutage(
  state: SandboxState,
  outage: Outage | null,
  call: { reference?: string | undefined; accountNumber?: string | undefined },
): void {
  const key = outageKey(call);
  if (!outage || key === null) return;
  const now = Date.now();
  const startedAt = state.outageStarts.get(key) ?? now;
  state.outageStarts.set(key, startedAt);
  if (now - startedAt >= outage.durationMs) return;
  if (outage.answer === '429') throw throttled(outage.retryAfterSeconds);
  if (outage.answer === 'html') throw new SandboxHttpError(502, '502', 'bad gateway', { html: true });
  throw new SandboxHttpError(503, '503', 'service temporarily unavailable');
}
