import type { Config } from '../../config';
import type { Logger } from '../../logger';
import type { ProviderMetrics } from '../../metrics/provider.metrics';
import type { PaymentProvider } from '../payment-provider';
import { fromListing } from './listing-rows';
import { createProviderClient } from './provider-client';

/** The provider SPEC.md describes, behind the service's port: its client, with listings read into rows. */
export function createSpecProvider(config: Config, logger: Logger, metrics?: Pick<ProviderMetrics, 'observe'>): PaymentProvider {
  const client = createProviderClient(config, logger, metrics);
  return {
    ...client,
    /** A virtual account's listing holds that account's credits, whatever its rows omit. */
    async listTransactions(input) {
      const listing = await client.listTransactions(input);
      const accountNumber = input.scope.kind === 'virtual_account' ? input.scope.accountNumber : undefined;
      return { rows: listing.transactions.map((transaction) => fromListing(transaction, accountNumber)), nextCursor: listing.nextCursor };
    },
  };
}
