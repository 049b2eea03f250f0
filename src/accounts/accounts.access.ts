import type { DbOrTrx } from '../db';
import { createAccountsRepo, type AccountRecord } from './accounts.repo';

/**
 * What other domains may read of an account, and the one change they make, in their own transaction:
 * they reach virtual_accounts only through these.
 */
export type { AccountRecord };

export const findAccountById = (db: DbOrTrx, id: string): Promise<AccountRecord | undefined> => createAccountsRepo(db).findById(id);

export const findAccountByRef = (db: DbOrTrx, tenantId: string, accountRef: string): Promise<AccountRecord | undefined> =>
  createAccountsRepo(db).findByRef(tenantId, accountRef);

/** An inbound payment names its account before its tenant is known. */
export const findAccountByRefAnyTenant = (db: DbOrTrx, accountRef: string): Promise<AccountRecord | undefined> =>
  createAccountsRepo(db).findByRefAnyTenant(accountRef);
