import type { DbOrTrx } from '../db';
import { requireCustomer } from './customer-lookup';
import { createCustomersRepo, type CustomerRecord } from './customers.repo';

/** The tenant's customer, or "customer not found" (unknown, another tenant's or a malformed id). */
export const requireTenantCustomer = (db: DbOrTrx, tenantId: string, id: string): Promise<CustomerRecord> =>
  requireCustomer(createCustomersRepo(db).find, tenantId, id);
