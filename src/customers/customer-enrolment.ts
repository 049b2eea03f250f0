import type { Config } from '../config';
import { encryptSecret } from '../crypto';
import type { DbOrTrx } from '../db';
import { BVN_COLUMN, encryptionContext } from '../encryption/encrypted-columns';
import { uuidv7 } from '../ids';
import { createCustomersRepo, type CustomerRecord } from './customers.repo';

/**
 * The name a new account for the customer of `externalRef` is registered under at the provider: the name KYC
 * verified when the customer is at tier 2 or above (it cannot change from then on), else the one requested.
 */
export async function accountHolderNameFor(db: DbOrTrx, input: { tenantId: string; externalRef: string; name: string }): Promise<string> {
  const customer = await createCustomersRepo(db).findByExternalRef(input.tenantId, input.externalRef);
  return customer && customer.kyc_tier >= 2 ? customer.name : input.name;
}

/**
 * The customer an account is provisioned for, created or reused by its externalRef inside the caller's
 * transaction, its row locked until the caller commits (a KYC decision waits for the account). The BVN is
 * encrypted once the row id is known (the id is bound to the ciphertext); the first BVN given is kept.
 */
export async function enrolCustomer(
  trx: DbOrTrx,
  keyring: Config['DATA_ENCRYPTION_KEYRING'],
  input: { tenantId: string; externalRef: string; name: string; bvn?: string | null },
): Promise<CustomerRecord> {
  const customers = createCustomersRepo(trx);
  const customer = await customers.upsertByExternalRef({
    id: uuidv7(),
    tenantId: input.tenantId,
    externalRef: input.externalRef,
    name: input.name,
  });
  if (input.bvn)
    await customers.setBvnIfAbsent(
      customer.id,
      encryptSecret(keyring, input.bvn, encryptionContext(BVN_COLUMN, customer.id)),
      input.bvn.slice(-4),
    );
  return customer;
}
