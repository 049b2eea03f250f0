import type { Config } from '../config';
import { encryptSecret } from '../crypto';
import type { DbOrTrx } from '../db';
import { BVN_COLUMN, encryptionContext } from '../encryption/encrypted-columns';
import { uuidv7 } from '../ids';
import { createCustomersRepo, type CustomerRecord } from './customers.repo';

/**
 * The customer an account is provisioned for, created or reused by its externalRef inside the caller's
 * transaction. The BVN is encrypted once the row id is known (the id is bound to the ciphertext); the first
 * BVN given is kept.
 */
export async function enrolCustomer(
  trx: DbOrTrx,
  keyring: Config['DATA_ENCRYPTION_KEYRING'],
  input: { tenantId: string; externalRef: string; name: string; bvn?: string | null },
): Promise<CustomerRecord> {
  const customers = createCustomersRepo(trx);
  const customer = await customers.upsertByExternalRef({ id: uuidv7(), tenantId: input.tenantId, externalRef: input.externalRef, name: input.name });
  if (input.bvn) await customers.setBvnIfAbsent(customer.id, encryptSecret(keyring, input.bvn, encryptionContext(BVN_COLUMN, customer.id)), input.bvn.slice(-4));
  return customer;
}
