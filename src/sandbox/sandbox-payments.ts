import type { z } from 'zod';
import { koboToProviderNumber } from '../money';
import { SANDBOX_BANKS } from './banks';
import { providerFeeKobo } from './fees';
import { accountHolderName } from './names';
import type { SandboxDeps } from './sandbox.deps';
import { isoSeconds, newPaymentTransactionId, randomAccountNumber } from './sandbox-ids';
import type { paymentBatchSchema, simulatedPaymentSchema } from './sandbox.schemas';
import type { SandboxPayment } from './sandbox.state';

type SimulatedPayment = z.output<typeof simulatedPaymentSchema>;
type PaymentBatch = z.output<typeof paymentBatchSchema>;

function senderBankName(accountNumber: string): string {
  return SANDBOX_BANKS[Number(accountNumber.slice(-2)) % SANDBOX_BANKS.length]?.name ?? 'Sandbox Bank';
}

/**
 * A payer sends `amount` to a virtual account. The accountRef need not exist: the real provider
 * can route a payment nobody here provisioned, and tests use that for misdirected payments.
 */
export async function simulatePayment(deps: SandboxDeps, input: SimulatedPayment) {
  const { state, webhooks } = deps;
  const now = new Date();
  const senderAccountNumber = input.senderAccountNumber ?? randomAccountNumber();
  const senderName = input.senderName ?? accountHolderName(senderAccountNumber);
  const payment: SandboxPayment = {
    transactionId: newPaymentTransactionId(),
    accountRef: input.accountRef,
    amountKobo: input.amount,
    feeKobo: input.fee ?? providerFeeKobo(input.amount),
    status: input.status,
    senderName,
    narration: input.narration,
    createdAt: now.toISOString(),
    lookupLagMs: input.lookupLagMs ?? deps.config.SANDBOX_LOOKUP_LAG,
    processingMs: input.processingMs,
    notFoundLookups: input.notFoundLookups,
    lookups: 0,
  };
  state.payments.set(payment.transactionId, payment);
  if (payment.status === 'SUCCESS') state.walletBalanceKobo += payment.amountKobo - payment.feeKobo;

  const sent = await webhooks.send(
    'payment_success',
    {
      transaction: {
        transactionId: payment.transactionId,
        type: 'vact_transfer',
        time: isoSeconds(now),
        responseCode: '',
        transactionAmount: koboToProviderNumber(payment.amountKobo),
        fee: koboToProviderNumber(payment.feeKobo),
        currency: 'NGN',
        aliasAccountReference: payment.accountRef,
        narration: input.narration,
      },
      customer: {
        senderName,
        accountNumber: senderAccountNumber,
        bankName: senderBankName(senderAccountNumber),
      },
    },
    { deliver: input.deliver, suppress: input.suppressWebhook },
  );
  return {
    requestId: sent.event.requestId,
    transactionId: payment.transactionId,
    payload: sent.payload,
    headers: sent.event.headers,
    delivery: sent.delivery
      ? { status: sent.delivery.status, ...(sent.delivery.error ? { error: sent.delivery.error } : {}) }
      : { status: null },
  };
}

/** The payment's status at `nowMs`: PROCESSING for its first `processingMs`, then its own. */
export function paymentStatusAt(payment: SandboxPayment, nowMs: number): SandboxPayment['status'] {
  return nowMs - Date.parse(payment.createdAt) < payment.processingMs ? 'PROCESSING' : payment.status;
}

/**
 * The payment as the provider's lookup shows it at `nowMs`, or null while the lookup does not know it
 * yet (lookup lag, or the first lookups that answer "not found"). Counts the lookup.
 */
export function paymentAsLookedUp(payment: SandboxPayment, nowMs: number): SandboxPayment | null {
  payment.lookups += 1;
  if (payment.lookups <= payment.notFoundLookups || nowMs - Date.parse(payment.createdAt) < payment.lookupLagMs) return null;
  return { ...payment, status: paymentStatusAt(payment, nowMs) };
}

/** `count` payments spread over the accounts, recorded as the provider's but not delivered: the caller sends them. */
export async function simulatePaymentBatch(
  deps: SandboxDeps,
  batch: PaymentBatch,
): Promise<Array<{ body: string; headers: Record<string, string> }>> {
  const events = [];
  for (let i = 0; i < batch.count; i += 1) {
    const accountRef = batch.accountRefs[i % batch.accountRefs.length]!;
    const sent = await simulatePayment(deps, {
      accountRef,
      amount: batch.amount,
      narration: 'benchmark',
      status: 'SUCCESS',
      deliver: false,
      suppressWebhook: false,
      processingMs: 0,
      notFoundLookups: 0,
    });
    events.push({ body: JSON.stringify(sent.payload), headers: sent.headers });
  }
  return events;
}
