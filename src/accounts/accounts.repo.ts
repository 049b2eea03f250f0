import type { DbOrTrx } from '../db';
import type { Metadata } from '../http/metadata';
import { containsPattern } from '../like-pattern';
import { koboFromDb, type Kobo } from '../money';
import type { FreezeReason, FreezeSide } from '../policies/account-freeze/account-freeze';
import type { AmountPolicy, MismatchHandling } from '../policies/dynamic-account-amount/amount-policy';

type AccountStatus = 'active' | 'expired';

export interface AccountRecord {
  id: string;
  tenantId: string;
  customerId: string;
  accountRef: string;
  bankAccountNumber: string;
  bankAccountName: string;
  bankName: string;
  currency: 'NGN';
  status: AccountStatus;
  callbackUrl: string | null;
  expectedAmount: Kobo | null;
  /** A dynamic account's expiry: from then on it accepts no payment (null: it does not expire by time). */
  expiresAt: Date | null;
  /** Set (both) on a dynamic account only. */
  amountPolicy: AmountPolicy | null;
  onMismatch: MismatchHandling | null;
  ledgerBalance: Kobo;
  pendingCredits: Kobo;
  heldBalance: Kobo;
  totalCredits: Kobo;
  totalDebits: Kobo;
  /** The entries' seq up to which the totals above count. */
  lastSeq: bigint;
  /** Set while the ledger balance is below zero (a spent provisional credit was reversed). */
  deficitSince: Date | null;
  /** The account's freeze (see policies/account-freeze), null when it is not frozen. */
  freeze: { frozenFor: FreezeSide; reason: FreezeReason; frozenAt: Date } | null;
  /** The tenant's own data on the account. */
  metadata: Metadata;
  createdAt: Date;
  updatedAt: Date;
}

interface AccountRow {
  id: string;
  tenant_id: string;
  customer_id: string;
  account_ref: string;
  bank_account_number: string;
  bank_account_name: string;
  bank_name: string;
  currency: 'NGN';
  status: AccountStatus;
  callback_url: string | null;
  expected_amount: string | null;
  expires_at: Date | null;
  amount_policy: AmountPolicy | null;
  on_mismatch: MismatchHandling | null;
  ledger_balance: string;
  pending_credits: string;
  held_balance: string;
  total_credits: string;
  total_debits: string;
  last_seq: string;
  deficit_since: Date | null;
  frozen_for: FreezeSide | null;
  frozen_reason: FreezeReason | null;
  frozen_at: Date | null;
  metadata: Metadata;
  created_at: Date;
  updated_at: Date;
}

function toAccount(row: AccountRow): AccountRecord {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    customerId: row.customer_id,
    accountRef: row.account_ref,
    bankAccountNumber: row.bank_account_number,
    bankAccountName: row.bank_account_name,
    bankName: row.bank_name,
    currency: row.currency,
    status: row.status,
    callbackUrl: row.callback_url,
    expectedAmount: row.expected_amount === null ? null : koboFromDb(row.expected_amount),
    expiresAt: row.expires_at,
    amountPolicy: row.amount_policy,
    onMismatch: row.on_mismatch,
    ledgerBalance: koboFromDb(row.ledger_balance),
    pendingCredits: koboFromDb(row.pending_credits),
    heldBalance: koboFromDb(row.held_balance),
    totalCredits: koboFromDb(row.total_credits),
    totalDebits: koboFromDb(row.total_debits),
    lastSeq: BigInt(row.last_seq),
    deficitSince: row.deficit_since,
    freeze:
      row.frozen_for === null || row.frozen_reason === null || row.frozen_at === null
        ? null
        : { frozenFor: row.frozen_for, reason: row.frozen_reason, frozenAt: row.frozen_at },
    metadata: row.metadata,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** Every column of an account row, checked against AccountRow by the compiler. */
const ACCOUNT_COLUMNS = Object.keys({
  id: true,
  tenant_id: true,
  customer_id: true,
  account_ref: true,
  bank_account_number: true,
  bank_account_name: true,
  bank_name: true,
  currency: true,
  status: true,
  callback_url: true,
  expected_amount: true,
  expires_at: true,
  amount_policy: true,
  on_mismatch: true,
  ledger_balance: true,
  pending_credits: true,
  held_balance: true,
  total_credits: true,
  total_debits: true,
  last_seq: true,
  deficit_since: true,
  frozen_for: true,
  frozen_reason: true,
  frozen_at: true,
  metadata: true,
  created_at: true,
  updated_at: true,
} satisfies Record<keyof AccountRow, true>) as Array<keyof AccountRow>;

/**
 * The account columns of table alias `alias`, each renamed `<prefix><column>`: for one statement that
 * reads an account with other rows joined to it, whose column names would otherwise collide. With
 * `onlyWhere`, they are NULL on the rows where it is not true, so the account crosses the wire (and is
 * parsed) once rather than once per joined row.
 */
export function prefixedAccountColumns(alias: string, prefix: string, onlyWhere?: string): string {
  return ACCOUNT_COLUMNS.map(
    (column) => `${onlyWhere ? `CASE WHEN ${onlyWhere} THEN ${alias}.${column} END` : `${alias}.${column}`} AS ${prefix}${column}`,
  ).join(', ');
}

/** The account read through prefixedAccountColumns. */
export function accountFromPrefixed(row: Record<string, unknown>, prefix: string): AccountRecord {
  return toAccount(Object.fromEntries(ACCOUNT_COLUMNS.map((column) => [column, row[`${prefix}${column}`]])) as unknown as AccountRow);
}

export interface AccountSearchHit extends AccountRecord {
  customerName: string;
  customerExternalRef: string;
}

type NewAccount = Pick<
  AccountRecord,
  | 'id'
  | 'tenantId'
  | 'customerId'
  | 'accountRef'
  | 'bankAccountNumber'
  | 'bankAccountName'
  | 'bankName'
  | 'callbackUrl'
  | 'expectedAmount'
  | 'expiresAt'
  | 'amountPolicy'
  | 'onMismatch'
  | 'metadata'
>;

export function createAccountsRepo(db: DbOrTrx) {
  const one = async (query: Promise<AccountRow | undefined>): Promise<AccountRecord | undefined> => {
    const row = await query;
    return row ? toAccount(row) : undefined;
  };

  return {
    /** Idempotent on accountRef: concurrent provisioning of one reference makes one row. */
    async insert(account: NewAccount): Promise<AccountRecord> {
      await db('virtual_accounts')
        .insert({
          id: account.id,
          tenant_id: account.tenantId,
          customer_id: account.customerId,
          account_ref: account.accountRef,
          bank_account_number: account.bankAccountNumber,
          bank_account_name: account.bankAccountName,
          bank_name: account.bankName,
          callback_url: account.callbackUrl,
          expected_amount: account.expectedAmount,
          expires_at: account.expiresAt,
          amount_policy: account.amountPolicy,
          on_mismatch: account.onMismatch,
          metadata: JSON.stringify(account.metadata),
        })
        .onConflict('account_ref')
        .ignore();
      const row: AccountRow = await db('virtual_accounts').where({ account_ref: account.accountRef }).first();
      return toAccount(row);
    },

    /**
     * Marks expired, at most `limit` at a time, the active accounts whose expiry has passed by the database's
     * clock (never one early); their references. Rows a posting holds locked are skipped and taken by a later
     * pass, so this never waits on (or deadlocks with) a posting, which locks customers and then accounts.
     */
    async expireDue(limit: number): Promise<Array<{ tenantId: string; accountRef: string }>> {
      const result = await db.raw(
        `UPDATE virtual_accounts v SET status = 'expired', updated_at = now()
           FROM (SELECT id FROM virtual_accounts
                  WHERE status = 'active' AND expires_at IS NOT NULL AND expires_at <= clock_timestamp()
                    -- An account whose tenant moved to another cluster expires there; here the fence refuses the update.
                    AND moved_out_at IS NULL
                  ORDER BY expires_at LIMIT ? FOR NO KEY UPDATE SKIP LOCKED) due
          WHERE v.id = due.id AND v.status = 'active'
          RETURNING v.tenant_id, v.account_ref`,
        [limit],
      );
      return (result.rows as Array<{ tenant_id: string; account_ref: string }>).map((row) => ({
        tenantId: row.tenant_id,
        accountRef: row.account_ref,
      }));
    },

    findByRef(tenantId: string, accountRef: string): Promise<AccountRecord | undefined> {
      return one(db('virtual_accounts').where({ tenant_id: tenantId, account_ref: accountRef }).first());
    },

    /** The account locked for a change of its own fields (not its money, which the ledger locks). */
    findByRefForUpdate(tenantId: string, accountRef: string): Promise<AccountRecord | undefined> {
      return one(db('virtual_accounts').where({ tenant_id: tenantId, account_ref: accountRef }).forUpdate().first());
    },

    async setMetadata(id: string, metadata: Metadata): Promise<AccountRecord> {
      const [row]: AccountRow[] = await db('virtual_accounts')
        .where({ id })
        .update({ metadata: JSON.stringify(metadata), updated_at: db.fn.now() })
        .returning('*');
      return toAccount(row as AccountRow);
    },

    /** For the provider's webhook, which names an account but no tenant. */
    findByRefAnyTenant(accountRef: string): Promise<AccountRecord | undefined> {
      return one(db('virtual_accounts').where({ account_ref: accountRef }).first());
    },

    findById(id: string): Promise<AccountRecord | undefined> {
      return one(db('virtual_accounts').where({ id }).first());
    },

    findFirstForCustomer(tenantId: string, customerId: string): Promise<AccountRecord | undefined> {
      return one(db('virtual_accounts').where({ tenant_id: tenantId, customer_id: customerId }).orderBy('id').first());
    },

    /** With `metadata`, only the accounts whose metadata holds every pair of it (`@>`, served by the GIN index). */
    async list(tenantId: string, afterId: string | null, limit: number, metadata?: Metadata): Promise<AccountRecord[]> {
      const query = db('virtual_accounts').where({ tenant_id: tenantId }).orderBy('id').limit(limit);
      if (afterId) query.where('id', '>', afterId);
      if (metadata) query.whereRaw('metadata @> CAST(? AS jsonb)', [JSON.stringify(metadata)]);
      const rows: AccountRow[] = await query;
      return rows.map(toAccount);
    },

    /** The tenant's accounts below zero, longest in deficit first. */
    async listInDeficit(tenantId: string, limit: number): Promise<AccountRecord[]> {
      const rows: AccountRow[] = await db('virtual_accounts')
        .where({ tenant_id: tenantId })
        .whereNotNull('deficit_since')
        .orderBy('deficit_since')
        .limit(limit);
      return rows.map(toAccount);
    },

    /**
     * The tenant's accounts (oldest first) whose AccountRef, account number or customer externalRef is
     * `text`, or whose customer's name contains it; every account when `text` is null. Each branch is
     * an index lookup (the name through a trigram index). With `metadata`, only the accounts carrying every pair of it.
     */
    async search(
      tenantId: string,
      text: string | null,
      afterId: string | null,
      limit: number,
      metadata?: Metadata,
    ): Promise<AccountSearchHit[]> {
      const query = db('virtual_accounts as va')
        .join('customers as c', 'c.id', 'va.customer_id')
        .where('va.tenant_id', tenantId)
        .orderBy('va.id')
        .limit(limit)
        .select('va.*', 'c.name as customer_name', 'c.external_ref as customer_external_ref');
      if (afterId) query.where('va.id', '>', afterId);
      if (metadata) query.whereRaw('va.metadata @> CAST(? AS jsonb)', [JSON.stringify(metadata)]);
      if (text !== null) {
        query.whereIn(
          'va.id',
          db
            .select('id')
            .from('virtual_accounts')
            .where('account_ref', text)
            .orWhere('bank_account_number', text)
            .union((union) =>
              union
                .select('owned.id')
                .from('virtual_accounts as owned')
                .join('customers as owner', 'owner.id', 'owned.customer_id')
                .where('owner.tenant_id', tenantId)
                .where((match) =>
                  match.where('owner.external_ref', text).orWhereRaw("lower(owner.name) LIKE ? ESCAPE '\\'", [containsPattern(text)]),
                ),
            ),
        );
      }
      const rows: Array<AccountRow & { customer_name: string; customer_external_ref: string }> = await query;
      return rows.map((row) => ({ ...toAccount(row), customerName: row.customer_name, customerExternalRef: row.customer_external_ref }));
    },

    async listForCustomer(tenantId: string, customerId: string): Promise<AccountRecord[]> {
      const rows: AccountRow[] = await db('virtual_accounts')
        .where({ tenant_id: tenantId, customer_id: customerId })
        .orderBy('id')
        .limit(100);
      return rows.map(toAccount);
    },
  };
}
