import type Router from '@koa/router';
import { requireProviderAuth } from './auth';
import { failDuringOutage } from './faults';
import { paymentTransactionWire, transferTransactionWire } from './provider-wire';
import type { SandboxDeps } from './sandbox.deps';
import { paymentAsLookedUp } from './sandbox-payments';
import { answer, parseInput, SandboxHttpError } from './sandbox-http';
import { transactionQuerySchema } from './sandbox.schemas';

export function registerTransactionRoutes(router: Router, deps: SandboxDeps): void {
  const { state, transfers } = deps;

  // Payments are found by transactionId; transfers by id or merchantTxRef, and the lookup is the status check.
  router.get('/v1/transactions/accounts/single', requireProviderAuth(state), (ctx) => {
    const { transactionRef } = parseInput(transactionQuerySchema, ctx.query);
    const payment = state.payments.get(transactionRef);
    if (payment) {
      const visible = paymentAsLookedUp(payment, Date.now());
      if (!visible) throw new SandboxHttpError(404, '01', 'transaction not found');
      return answer(ctx, paymentTransactionWire(visible));
    }
    const transfer = state.transfers.get(transactionRef) ?? state.transferByReference(transactionRef);
    const reference = transfer?.merchantTxRef ?? transactionRef;
    failDuringOutage(state, transfers.profileFor({ reference }).outage, { reference });
    // A transfer the provider's lookup does not see yet (lookup lag) is answered exactly like an unknown one.
    const visibleStatus = transfer ? transfers.check(transfer) : null;
    if (transfer && visibleStatus) return answer(ctx, transferTransactionWire(transfer, visibleStatus));
    throw new SandboxHttpError(404, '01', 'transaction not found');
  });
}
