import { API_KEY_ACTOR, createAuditLog } from '../audit/audit-log';
import type { Db } from '../db';
import { AppError } from '../errors';
import type { AuthenticatedUser } from '../http/context';
import { uuidv7 } from '../ids';
import { requireCustomer } from './customer-lookup';
import { createCustomersRepo, type CustomerRecord, type CustomerSearch, type CustomerStatus } from './customers.repo';

export function createCustomersService(deps: { db: Db }) {
  const { db } = deps;
  const customers = createCustomersRepo(db);

  /**
   * Operator action. Asking for the state the customer is already in changes nothing and records
   * nothing, so a retried or double-clicked request is harmless.
   */
  async function setStatus(user: AuthenticatedUser, id: string, status: CustomerStatus): Promise<CustomerRecord> {
    return db.transaction(async (trx) => {
      const store = createCustomersRepo(trx);
      const current = await requireCustomer(store.findForUpdate, user.tenantId, id);
      if (current.status === status) return current;
      const updated = await store.updateStatus(current.id, status);
      await store.audit({
        id: uuidv7(),
        tenantId: user.tenantId,
        customerId: current.id,
        userId: user.id,
        action: status === 'suspended' ? 'suspended' : 'reactivated',
      });
      await createAuditLog(trx).record(
        user,
        status === 'suspended' ? 'customer.suspended' : 'customer.reactivated',
        { type: 'customer', id: current.id },
        { name: current.name },
      );
      return updated;
    });
  }

  return {
    find(tenantId: string, id: string): Promise<CustomerRecord> {
      return requireCustomer(customers.find, tenantId, id);
    },

    list(tenantId: string, afterId: string | null, limit: number): Promise<CustomerRecord[]> {
      return customers.list(tenantId, afterId, limit + 1);
    },

    /** One more than `limit` rows, for the caller's paging. */
    search(tenantId: string, search: CustomerSearch, afterId: string | null, limit: number): Promise<CustomerRecord[]> {
      return customers.search(tenantId, search, afterId, limit + 1);
    },

    /**
     * A verified identity (KYC tier 2 or above) was checked against the customer's name, so that name
     * stays; a submission awaiting review was made under it, so it stays until the decision. Any other
     * rename is audited; the same name again changes and records nothing.
     */
    async rename(tenantId: string, id: string, name: string): Promise<CustomerRecord> {
      return db.transaction(async (trx) => {
        const store = createCustomersRepo(trx);
        const customer = await requireCustomer(store.findForUpdate, tenantId, id);
        if (customer.kyc_tier >= 2)
          throw new AppError(
            'conflict',
            'kyc_verified_name',
            "the customer's identity was verified under this name (KYC tier 2 or above): it cannot be renamed",
          );
        if (customer.kyc_status === 'pending_review')
          throw new AppError('conflict', 'kyc_review_pending', 'a KYC submission under this name awaits review: rename after the decision');
        if (customer.name === name) return customer;
        const renamed = (await store.updateName(tenantId, customer.id, name))!;
        await createAuditLog(trx).recordAs(
          tenantId,
          API_KEY_ACTOR,
          'customer.renamed',
          { type: 'customer', id: customer.id },
          { from: customer.name, to: name, kycTier: customer.kyc_tier },
        );
        return renamed;
      });
    },

    suspend: (user: AuthenticatedUser, id: string) => setStatus(user, id, 'suspended'),
    reactivate: (user: AuthenticatedUser, id: string) => setStatus(user, id, 'active'),
  };
}

export type CustomersService = ReturnType<typeof createCustomersService>;
