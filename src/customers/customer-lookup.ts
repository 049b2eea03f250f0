import { NotFoundError } from '../errors';
import { isUuid } from '../ids';
import type { CustomerRecord } from './customers.repo';

type Lookup = (tenantId: string, id: string) => Promise<CustomerRecord | undefined>;

/** Unknown, another tenant's and malformed ids all read as "customer not found". */
export async function requireCustomer(lookup: Lookup, tenantId: string, id: string): Promise<CustomerRecord> {
  const customer = isUuid(id) ? await lookup(tenantId, id.toLowerCase()) : undefined;
  if (!customer) throw new NotFoundError('customer not found');
  return customer;
}
