import Router from '@koa/router';
import Koa from 'koa';
import type { Config } from '../config';
import { jsonBody } from '../http/middleware/body';
import type { Logger } from '../logger';
import { registerAuthRoutes } from './auth.routes';
import { registerControlRoutes } from './control.routes';
import { faultsFromConfig, injectFaults, logTransferCalls } from './faults';
import { registerIdentityRoutes } from './identity.routes';
import { registerListingRoutes } from './listing.routes';
import { registerPaymentStatusRoutes } from './payment-status.routes';
import type { SandboxDeps } from './sandbox.deps';
import { accessLog, routeNotFound, sandboxErrors } from './sandbox-http';
import { SandboxState } from './sandbox.state';
import { Scheduler } from './scheduler';
import { createTransferLifecycle } from './transfer-lifecycle';
import { registerTransactionRoutes } from './transactions.routes';
import { registerTransferRoutes } from './transfers.routes';
import { registerVirtualAccountRoutes } from './virtual-accounts.routes';
import { createWebhookSender } from './webhook-sender';

export interface Sandbox {
  /** Not listening: the caller owns the server (src/main/sandbox.ts, or a test on port 0). */
  app: Koa;
  state: SandboxState;
  /** Cancels timers, releases held responses and aborts webhook deliveries in flight. */
  close(): Promise<void>;
}

/** The provider simulator: the provider's HTTP shape, magic values for every outcome, fault injection. */
export function createSandbox(options: { config: Config; logger: Logger }): Sandbox {
  const { config, logger } = options;
  const state = new SandboxState(faultsFromConfig(config));
  const scheduler = new Scheduler();
  const webhooks = createWebhookSender({ config, logger, state });
  const transfers = createTransferLifecycle({ config, state, scheduler, webhooks });
  const deps: SandboxDeps = { config, logger, state, scheduler, webhooks, transfers };

  const router = new Router();
  registerAuthRoutes(router, deps);
  registerVirtualAccountRoutes(router, deps);
  registerTransactionRoutes(router, deps);
  registerTransferRoutes(router, deps);
  registerIdentityRoutes(router);
  registerControlRoutes(router, deps);
  registerListingRoutes(router, deps);
  registerPaymentStatusRoutes(router, deps);

  const app = new Koa();
  app.silent = true;
  app.use(accessLog(logger));
  app.use(sandboxErrors(logger));
  app.use(jsonBody());
  app.use(logTransferCalls(state));
  app.use(injectFaults(state, scheduler));
  app.use(router.routes());
  app.use(router.allowedMethods({ throw: true }));
  app.use(routeNotFound);

  return {
    app,
    state,
    async close() {
      scheduler.cancelAll();
      webhooks.close();
    },
  };
}
