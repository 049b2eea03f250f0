import type { DbOrTrx } from '../db';

export interface BeneficiaryRecord {
  id: string;
  tenantId: string;
  bankCode: string;
  accountNumber: string;
  accountName: string;
  nickname: string | null;
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
  /** Undefined keeps the nickname a beneficiary already saved for the destination has. */
  nickname: string | undefined;
}

/** Only live beneficiaries are read or changed here; a deleted one's row stays for the settlements that name it. */
export function createBeneficiariesRepo(db: DbOrTrx) {
  const live = () => db('beneficiaries').whereNull('deleted_at');
  return {
    /**
     * Saves the destination, or refreshes the tenant's live beneficiary of it (its name and check time, and
     * its nickname when one is given) in the same statement, so two saves at once make one beneficiary.
     */
    async save(destination: SavedDestination, checkedAt: Date): Promise<{ beneficiary: BeneficiaryRecord; created: boolean }> {
      const { rows } = await db.raw<{ rows: Array<BeneficiaryRow & { created: boolean }> }>(
        `INSERT INTO beneficiaries AS b (id, tenant_id, bank_code, account_number, account_name, nickname, name_checked_at)
         VALUES (:id, :tenant_id, :bank_code, :account_number, :account_name, :nickname, :checked_at)
         ON CONFLICT (tenant_id, bank_code, account_number) WHERE deleted_at IS NULL
         DO UPDATE SET account_name = EXCLUDED.account_name,
                       name_checked_at = EXCLUDED.name_checked_at,
                       nickname = CASE WHEN CAST(:keep_nickname AS boolean) THEN b.nickname ELSE EXCLUDED.nickname END
         RETURNING b.*, (xmax = 0) AS created`,
        {
          id: destination.id,
          tenant_id: destination.tenantId,
          bank_code: destination.bankCode,
          account_number: destination.accountNumber,
          account_name: destination.accountName,
          nickname: destination.nickname ?? null,
          keep_nickname: destination.nickname === undefined,
          checked_at: checkedAt,
        },
      );
      const row = rows[0]!;
      return { beneficiary: toBeneficiary(row), created: row.created };
    },

    async find(tenantId: string, id: string): Promise<BeneficiaryRecord | undefined> {
      const row: BeneficiaryRow | undefined = await live().where({ tenant_id: tenantId, id }).first();
      return row ? toBeneficiary(row) : undefined;
    },

    /** Oldest first, after the cursor's id. */
    async list(tenantId: string, afterId: string | null, limit: number): Promise<BeneficiaryRecord[]> {
      const select = live().where({ tenant_id: tenantId }).orderBy('id').limit(limit);
      if (afterId) select.where('id', '>', afterId);
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
