import type { CustomerRecord } from './customers.repo';
import type { CustomerView } from './customers.schemas';

export function presentCustomer(customer: CustomerRecord): CustomerView {
  return {
    ID: customer.id,
    TenantID: customer.tenant_id,
    ExternalRef: customer.external_ref,
    Name: customer.name,
    BVNLast4: customer.bvn_last4,
    NINLast4: customer.nin_last4,
    KYCTier: customer.kyc_tier,
    KYCStatus: customer.kyc_status,
    Status: customer.status,
    CreatedAt: customer.created_at.toISOString(),
    UpdatedAt: customer.updated_at.toISOString(),
  };
}
