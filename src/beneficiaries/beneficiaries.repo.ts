import type { DbOrTrx } from '../db';
import type { Metadata } from '../http/metadata';

export interface BeneficiaryRecord {
  id: string;
  tenantId: string;
  bankCode: string;
  accountNumber: string;
  accountName: string;
  nickname: string | null;
  /** The tenant's own data on the beneficiary. */
  metadata: Metadata;
  nameCheckedAt: Date;
  createdAt: Date;
}

interface BeneficiaryRow {
  id: string;
  tenant_id: string;
  bank_code: string;
  account_number: string;
  account_name: string;
  nickname: string | null;
  metadata: Metadata;
  name_checked_at: Date;
  created_at: Date;
}

function toBeneficiary(row: BeneficiaryRow): BeneficiaryRecord {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    bankCode: row.bank_code,
    accountNumber: row.account_number,
    accountName: row.account_name,
    nickname: row.nickname,
    metadata: row.metadata,
    nameCheckedAt: row.name_checked_at,
    createdAt: row.created_at,
  };
}

export interface SavedDestination {
  id: string;
  tenantId: string;
  bankCode: string;
  accountNumber: string;
  accountName: string;
  nickname: string | undefined;
  metadata: Metadata | undefined;
}

/** Only live beneficiaries are read or changed here; a deleted one's row stays for the settlements that name it. */
export function createBeneficiariesRepo(db: DbOrTrx) {
  const live = () => db('beneficiaries').whereNull('deleted_at');
  return {
    /** Holds the tenant's live beneficiary of the destination until the transaction ends; undefined when there is none. */
    async lockDestination(tenantId: string, bankCode: string, accountNumber: string): Promise<BeneficiaryRecord | undefined> {
      const row: BeneficiaryRow | undefined = await live()
        .where({ tenant_id: tenantId, bank_code: bankCode, account_number: accountNumber })
        .forUpdate()
        .first();
      return row ? toBeneficiary(row) : undefined;
    },

    /**
     * Saves a destination the tenant has no live beneficiary of; undefined when one was saved meanwhile (a save
     * racing this one: the insert waits for it to commit), which the caller then refreshes.
     */
    async insert(destination: SavedDestination, checkedAt: Date): Promise<BeneficiaryRecord | undefined> {
      const { rows } = await db.raw<{ rows: BeneficiaryRow[] }>(
        `INSERT INTO beneficiaries (id, tenant_id, bank_code, account_number, account_name, nickname, metadata, name_checked_at)
         VALUES (:id, :tenant_id, :bank_code, :account_number, :account_name, :nickname, CAST(:metadata AS jsonb), :checked_at)
         ON CONFLICT (tenant_id, bank_code, account_number) WHERE deleted_at IS NULL DO NOTHING
         RETURNING *`,
        {
          id: destination.id,
          tenant_id: destination.tenantId,
          bank_code: destination.bankCode,
          account_number: destination.accountNumber,
          account_name: destination.accountName,
          nickname: destination.nickname ?? null,
          metadata: JSON.stringify(destination.metadata ?? {}),
          checked_at: checkedAt,
        },
      );
      return rows[0] ? toBeneficiary(rows[0]) : undefined;
    },

    /**
     * A locked beneficiary takes the name just looked up and its check time, and the nickname and the metadata when they
     * are given.
     */
    async refresh(
      id: string,
      accountName: string,
      given: { nickname: string | undefined; metadata: Metadata | undefined },
      checkedAt: Date,
    ): Promise<BeneficiaryRecord> {
      const { nickname, metadata } = given;
      const [row]: BeneficiaryRow[] = await live()
        .where({ id })
        .update({
          account_name: accountName,
          name_checked_at: checkedAt,
          ...(nickname !== undefined ? { nickname } : {}),
          ...(metadata !== undefined ? { metadata: JSON.stringify(metadata) } : {}),
        })
        .returning('*');
      return toBeneficiary(row!);
    },

    async setMetadata(id: string, metadata: Metadata): Promise<BeneficiaryRecord> {
      const [row]: BeneficiaryRow[] = await live()
        .where({ id })
        .update({ metadata: JSON.stringify(metadata) })
        .returning('*');
      return toBeneficiary(row!);
    },

    async find(tenantId: string, id: string): Promise<BeneficiaryRecord | undefined> {
      const row: BeneficiaryRow | undefined = await live().where({ tenant_id: tenantId, id }).first();
      return row ? toBeneficiary(row) : undefined;
    },

    /** Oldest first, after the cursor's id; with `metadata`, only those carrying every pair of it (`@>`, served by the GIN index). */
    async list(tenantId: string, afterId: string | null, limit: number, metadata?: Metadata): Promise<BeneficiaryRecord[]> {
      const select = live().where({ tenant_id: tenantId }).orderBy('id').limit(limit);
      if (afterId) select.where('id', '>', afterId);
      if (metadata) select.whereRaw('metadata @> CAST(? AS jsonb)', [JSON.stringify(metadata)]);
      const rows: BeneficiaryRow[] = await select;
      return rows.map(toBeneficiary);
    },

    /** Holds the live beneficiary until the transaction ends, so nothing starts using it while it is deleted. */
    async lock(tenantId: string, id: string): Promise<BeneficiaryRecord | undefined> {
      const row: BeneficiaryRow | undefined = await live().where({ tenant_id: tenantId, id }).forUpdate().first();
      return row ? toBeneficiary(row) : undefined;
    },

    async markDeleted(id: string): Promise<void> {
      await db('beneficiaries').where({ id }).update({ deleted_at: db.fn.now() });
    },

    /** The provider still gives the saved name: it is current as of `checkedAt` (and takes the provider's spelling). */
    async renewNameCheck(id: string, accountName: string, checkedAt: Date): Promise<void> {
      await live().where({ id }).update({ account_name: accountName, name_checked_at: checkedAt });
    },
  };
}
