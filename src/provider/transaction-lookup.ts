import type { Logger } from '../logger';
import { ProviderRejectedError, ProviderUnavailableError } from './errors';
import type { PaymentProvider } from './payment-provider';
import type { ProviderTxnLookup } from './provider-answers';

/** The provider's view of a transaction; "unavailable" is an answer, so workflows decide how long to keep asking. */
export async function lookupProviderTransaction(
  provider: PaymentProvider,
  logger: Logger,
  transactionRef: string,
): Promise<ProviderTxnLookup> {
  try {
    const transaction = await provider.getTransaction(transactionRef);
    if (!transaction) return { kind: 'not_found' };
    return {
      kind: 'found',
      status: transaction.status,
      grossAmountKobo: transaction.amountKobo.toString(),
      feeKobo: transaction.feeKobo === null ? null : transaction.feeKobo.toString(),
      transactionId: transaction.id,
      accountRef: transaction.aliasAccountReference,
      type: transaction.type,
      merchantTxRef: transaction.merchantTxRef,
      currency: transaction.currency,
    };
  } catch (error) {
    if (error instanceof ProviderUnavailableError || error instanceof ProviderRejectedError) {
      logger.warn({ err: error, transactionRef }, 'provider transaction lookup failed');
      const retryAfterMs = error instanceof ProviderUnavailableError ? error.retryAfterMs : null;
      return { kind: 'unavailable', reason: error.message, ...(retryAfterMs === null ? {} : { retryAfterMs }) };
    }
    throw error;
  }
}
