import { createAuditLog } from '../audit/audit-log';
import type { Db } from '../db';
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
      await store.audit({ id: uuidv7(), tenantId: user.tenantId, customerId: current.id, userId: user.id, action: status === 'suspended' ? 'suspended' : 'reactivated' });
      await createAuditLog(trx).record(user, status === 'suspended' ? 'customer.suspended' : 'customer.reactivated', { type: 'customer', id: current.id }, { name: current.name });
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

    async rename(tenantId: string, id: string, name: string): Promise<CustomerRecord> {
      const customer = await requireCustomer(customers.find, tenantId, id);
      return (await customers.updateName(tenantId, customer.id, name))!;
    },

    suspend: (user: AuthenticatedUser, id: string) => setStatus(user, id, 'suspended'),
    reactivate: (user: AuthenticatedUser, id: string) => setStatus(user, id, 'active'),
  };
}

export type CustomersService = ReturnType<typeof createCustomersService>;
