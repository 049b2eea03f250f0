import type { DbOrTrx } from '../db';
import { isUuid } from '../ids';
import { containsPattern } from '../like-pattern';

type KycStatus = 'none' | 'pending_review' | 'approved' | 'rejected';
export type CustomerStatus = 'active' | 'suspended';

export interface CustomerRecord {
  id: string;
  tenant_id: string;
  external_ref: string;
  name: string;
  bvn_last4: string | null;
  nin_last4: string | null;
  kyc_tier: 1 | 2 | 3;
  kyc_status: KycStatus;
  kyc_review_reason: string | null;
  status: CustomerStatus;
  created_at: Date;
  updated_at: Date;
}

/** Encrypted identity numbers are never selected: nothing outside the database needs them back. */
const PUBLIC_COLUMNS = [
  'id',
  'tenant_id',
  'external_ref',
  'name',
  'bvn_last4',
  'nin_last4',
  'kyc_tier',
  'kyc_status',
  'kyc_review_reason',
  'status',
  'created_at',
  'updated_at',
];

export interface CustomerSearch {
  /** Exact externalRef or customer id, or any part of the name. */
  text: string | null;
  kycStatus: KycStatus | null;
  status: CustomerStatus | null;
}

interface NewCustomer {
  id: string;
  tenantId: string;
  externalRef: string;
  name: string;
}

export interface KycChange {
  kycTier: 1 | 2 | 3;
  kycStatus: KycStatus;
  reviewReason?: string | null;
  ninEnc?: string;
  ninLast4?: string;
}

export function createCustomersRepo(db: DbOrTrx) {
  return {
    async findByExternalRef(tenantId: string, externalRef: string): Promise<CustomerRecord | undefined> {
      return db('customers').where({ tenant_id: tenantId, external_ref: externalRef }).first(PUBLIC_COLUMNS);
    },

    /** Creates the tenant's customer for externalRef, or returns (and locks) the one that exists. */
    async upsertByExternalRef(customer: NewCustomer): Promise<CustomerRecord> {
      const [inserted]: CustomerRecord[] = await db('customers')
        .insert({
          id: customer.id,
          tenant_id: customer.tenantId,
          external_ref: customer.externalRef,
          name: customer.name,
        })
        .onConflict(['tenant_id', 'external_ref'])
        .ignore()
        .returning(PUBLIC_COLUMNS);
      if (inserted) return inserted;
      const existing: CustomerRecord = await db('customers')
        .where({ tenant_id: customer.tenantId, external_ref: customer.externalRef })
        .forUpdate()
        .first(PUBLIC_COLUMNS);
      return existing;
    },

    /** The first BVN given for a customer is kept. */
    async setBvnIfAbsent(id: string, bvnEnc: string, bvnLast4: string): Promise<void> {
      await db('customers').where({ id }).whereNull('bvn_enc').update({ bvn_enc: bvnEnc, bvn_last4: bvnLast4, updated_at: db.fn.now() });
    },

    async find(tenantId: string, id: string): Promise<CustomerRecord | undefined> {
      return db('customers').where({ tenant_id: tenantId, id }).first(PUBLIC_COLUMNS);
    },

    async findForUpdate(tenantId: string, id: string): Promise<CustomerRecord | undefined> {
      return db('customers').where({ tenant_id: tenantId, id }).forUpdate().first(PUBLIC_COLUMNS);
    },

    async list(tenantId: string, afterId: string | null, limit: number): Promise<CustomerRecord[]> {
      const query = db('customers').where({ tenant_id: tenantId }).orderBy('id').limit(limit).select(PUBLIC_COLUMNS);
      if (afterId) query.where('id', '>', afterId);
      return query;
    },

    /** Oldest first; the name part goes through the trigram index. */
    async search(tenantId: string, search: CustomerSearch, afterId: string | null, limit: number): Promise<CustomerRecord[]> {
      const query = db('customers').where({ tenant_id: tenantId }).orderBy('id').limit(limit).select(PUBLIC_COLUMNS);
      if (afterId) query.where('id', '>', afterId);
      if (search.kycStatus) query.where({ kyc_status: search.kycStatus });
      if (search.status) query.where({ status: search.status });
      const text = search.text;
      if (text !== null) {
        query.where((match) => {
          match.where('external_ref', text).orWhereRaw("lower(name) LIKE ? ESCAPE '\\'", [containsPattern(text)]);
          if (isUuid(text)) match.orWhere('id', text.toLowerCase());
        });
      }
      return query;
    },

    async listPendingReview(tenantId: string, limit: number): Promise<CustomerRecord[]> {
      return db('customers')
        .where({ tenant_id: tenantId, kyc_status: 'pending_review' })
        .orderBy('updated_at')
        .limit(limit)
        .select(PUBLIC_COLUMNS);
    },

    async updateName(tenantId: string, id: string, name: string): Promise<CustomerRecord | undefined> {
      const [row]: CustomerRecord[] = await db('customers')
        .where({ tenant_id: tenantId, id })
        .update({ name, updated_at: db.fn.now() })
        .returning(PUBLIC_COLUMNS);
      return row;
    },

    async updateKyc(id: string, change: KycChange): Promise<CustomerRecord> {
      const [row]: CustomerRecord[] = await db('customers')
        .where({ id })
        .update({
          kyc_tier: change.kycTier,
          kyc_status: change.kycStatus,
          ...(change.reviewReason !== undefined ? { kyc_review_reason: change.reviewReason } : {}),
          ...(change.ninEnc ? { nin_enc: change.ninEnc, nin_last4: change.ninLast4 } : {}),
          updated_at: db.fn.now(),
        })
        .returning(PUBLIC_COLUMNS);
      return row!;
    },

    async updateStatus(id: string, status: CustomerStatus): Promise<CustomerRecord> {
      const [row]: CustomerRecord[] = await db('customers')
        .where({ id })
        .update({ status, updated_at: db.fn.now() })
        .returning(PUBLIC_COLUMNS);
      return row!;
    },

    async audit(entry: {
      id: string;
      tenantId: string;
      customerId: string;
      userId: string | null;
      action: string;
      detail?: Record<string, unknown>;
    }): Promise<void> {
      await db('customer_audit').insert({
        id: entry.id,
        tenant_id: entry.tenantId,
        customer_id: entry.customerId,
        user_id: entry.userId,
        action: entry.action,
        detail: JSON.stringify(entry.detail ?? {}),
      });
    },
  };
}
