import type Router from '@koa/router';
import { z } from 'zod';
import { paymentTransactionWire } from './provider-wire';
import type { SandboxDeps } from './sandbox.deps';
import { parseInput, SandboxHttpError } from './sandbox-http';

const paramsSchema = z.object({ transactionId: z.string().trim().min(1).max(200) });
const bodySchema = z.object({ status: z.enum(['SUCCESS', 'PAYMENT_FAILED', 'PROCESSING', 'REFUND']) });

/**
 * Control route: the provider changes a payment's status after the fact, without a webhook (a payment
 * that succeeds late, one the payer's bank takes back). The wallet moves with it.
 */
export function registerPaymentStatusRoutes(router: Router, deps: SandboxDeps): void {
  const { state } = deps;

  router.post('/sandbox/payments/:transactionId/status', (ctx) => {
    const { transactionId } = parseInput(paramsSchema, ctx.params);
    const { status } = parseInput(bodySchema, ctx.request.body);
    const payment = state.payments.get(transactionId);
    if (!payment) throw new SandboxHttpError(404, '01', 'transaction not found');
    const net = payment.amountKobo - payment.feeKobo;
    if (payment.status === 'SUCCESS' && status !== 'SUCCESS') state.walletBalanceKobo -= net;
    if (payment.status !== 'SUCCESS' && status === 'SUCCESS') state.walletBalanceKobo += net;
    payment.status = status;
    payment.updatedAt = new Date().toISOString();
    ctx.body = paymentTransactionWire(payment);
  });
}
