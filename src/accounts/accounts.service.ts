import { API_KEY_ACTOR, createAuditLog } from '../audit/audit-log';
import { findTenant } from '../auth/tenants.access';
import type { Config } from '../config';
import { accountHolderNameFor, enrolCustomer } from '../customers/customer-enrolment';
import type { Db } from '../db';
import { AppError, BadRequestError, NotFoundError, ProviderOutageError, ValidationError } from '../errors';
import { mergedMetadata, metadataChangeDetail, type Metadata } from '../http/metadata';
import { createIdempotencyRepo } from '../idempotency/idempotency.repo';
import { accountFundsOf, type AccountFunds } from '../ledger/ledger-reads';
import { balancesAt, dailyBalancesOf, type BalanceAt, type DailyBalance } from '../ledger/balance-history';
import { idempotencyMismatch, requestHash, sameRequest } from '../idempotency/request-hash';
import { randomToken, uuidv7 } from '../ids';
import { ProviderRejectedError, ProviderUnavailableError } from '../provider/errors';
import { clientRetryAfterSeconds } from '../provider/lookup-retry';
import type { PaymentProvider } from '../provider/payment-provider';
import type { ProviderVirtualAccount } from '../provider/provider.types';
import { assertCallbackUrlAllowed } from '../net/address-policy';
import { createAccountsRepo, type AccountRecord, type AccountSearchHit } from './accounts.repo';
import { MAX_DAILY_BALANCE_DAYS, type ProvisionAccountBody } from './accounts.schemas';

/** AccountRefs carry the tenant's prefix, so a payment to a mistyped reference can still be attributed. */
export const ACCOUNT_REF_RE = /^va_([a-z0-9]{6})_[a-z0-9]{12}$/;

function newAccountRef(tenantRefPrefix: string): string {
  return `va_${tenantRefPrefix}_${randomToken(12)}`;
}

/** Accounts one expiry pass marks expired at most; a full pass goes again at once. */
const EXPIRY_BATCH = 500;

/**
 * A dynamic account's terms, from the provisioning body: an account is dynamic when it is given an expiry, a
 * policy or a mismatch handling. Its policy defaults to `exact` with an expected amount, `any` without; a
 * mismatch is credited and flagged unless it says `return`. An ordinary account has none of these.
 */
function dynamicTermsOf(body: ProvisionAccountBody, now: Date): Pick<AccountRecord, 'expiresAt' | 'amountPolicy' | 'onMismatch'> {
  const expiresAt =
    body.expiresAt !== undefined
      ? new Date(body.expiresAt)
      : body.expiresInSeconds !== undefined
        ? new Date(now.getTime() + body.expiresInSeconds * 1000)
        : null;
  if (expiresAt === null && body.amountPolicy === undefined && body.onMismatch === undefined) {
    return { expiresAt: null, amountPolicy: null, onMismatch: null };
  }
  return {
    expiresAt,
    amountPolicy: body.amountPolicy ?? (body.expectedAmount !== undefined ? 'exact' : 'any'),
    onMismatch: body.onMismatch ?? 'credit_and_flag',
  };
}

/** Deficits are rare (a reversal after the money was spent); the operator list is not paged. */
const DEFICIT_LIST_LIMIT = 500;

interface AccountBalance {
  account: AccountRecord;
  /** The ledger's read of the account's money, reservations and what it may spend. */
  funds: AccountFunds;
  asOf: Date;
}

/** The time zone of an account's days. */
export const DAILY_BALANCES_TIME_ZONE = 'Africa/Lagos';

/** Today's date (YYYY-MM-DD) in the days' time zone. */
const todayInZone = (now: Date): string => new Intl.DateTimeFormat('en-CA', { timeZone: DAILY_BALANCES_TIME_ZONE }).format(now);

/** Days from `from` to `to` (YYYY-MM-DD), both counted. */
const daysCounted = (from: string, to: string): number =>
  (Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000 + 1;

type AccountsConfig = Pick<
  Config,
  'DATA_ENCRYPTION_KEYRING' | 'ALLOW_PRIVATE_CALLBACK_URLS' | 'NODE_ENV' | 'MAX_AMOUNT' | 'REQUEST_HASH_SECRET'
>;

export function createAccountsService(deps: { db: Db; config: AccountsConfig; provider: PaymentProvider }) {
  const { db, config, provider } = deps;
  const accounts = createAccountsRepo(db);

  async function registerWithProvider(
    accountRef: string,
    body: ProvisionAccountBody,
    accountName: string,
    dynamic: boolean,
  ): Promise<ProviderVirtualAccount> {
    try {
      return await provider.createVirtualAccount({
        accountRef,
        accountName,
        ...(body.bvn ? { bvn: body.bvn } : {}),
        // A dynamic account's amounts are judged here, by its policy: the provider must let every payment through.
        ...(body.expectedAmount && !dynamic ? { expectedAmountKobo: body.expectedAmount } : {}),
      });
    } catch (error) {
      // Not asked again here (a registration is not a lookup): the client comes back after the provider's Retry-After, else 1 s.
      if (error instanceof ProviderUnavailableError) throw new ProviderOutageError(clientRetryAfterSeconds(error.retryAfterMs, 1_000));
      if (error instanceof ProviderRejectedError)
        throw new BadRequestError('provider_rejected', `provider rejected the account: ${error.description}`);
      throw error;
    }
  }

  async function find(tenantId: string, accountRef: string): Promise<AccountRecord> {
    const account = await accounts.findByRef(tenantId, accountRef);
    if (!account) throw new NotFoundError('account not found');
    return account;
  }

  return {
    find,

    /**
     * Registers the account with the provider first, then records it. With an Idempotency-Key the
     * reference is reserved before the provider call, so a retry after a failure completes the same account.
     * A customer KYC verified (tier 2 or above) gets its account under the verified name, whatever `name`
     * says: the provider's account name is what a payer's bank shows.
     */
    async provision(tenantId: string, body: ProvisionAccountBody, idempotencyKey?: string): Promise<AccountRecord> {
      if (body.callbackUrl) {
        await assertCallbackUrlAllowed(body.callbackUrl, {
          allowPrivate: config.ALLOW_PRIVATE_CALLBACK_URLS,
          requireHttps: config.NODE_ENV === 'production',
        });
      }
      if (body.expectedAmount && body.expectedAmount > config.MAX_AMOUNT) {
        throw new ValidationError('expectedAmount must be a positive amount with at most two decimals');
      }
      const tenant = await findTenant(db, tenantId);
      if (!tenant) throw new NotFoundError('tenant not found');
      let accountRef = newAccountRef(tenant.ref_prefix);
      if (idempotencyKey) {
        const { record } = await createIdempotencyRepo(db).claim({
          tenant_id: tenantId,
          scope: 'account',
          key: idempotencyKey,
          request_hash: requestHash(config.REQUEST_HASH_SECRET, body),
          resource_ref: accountRef,
        });
        if (!sameRequest(record.request_hash, config.REQUEST_HASH_SECRET, body)) throw idempotencyMismatch();
        if (record.resource_id) {
          const existing = await accounts.findById(record.resource_id);
          if (existing) return existing;
        }
        accountRef = record.resource_ref;
      }
      const terms = dynamicTermsOf(body, new Date());
      const holderName = await accountHolderNameFor(db, { tenantId, externalRef: body.externalRef, name: body.name });
      const registered = await registerWithProvider(accountRef, body, holderName, terms.amountPolicy !== null);
      return db.transaction(async (trx) => {
        const customer = await enrolCustomer(trx, config.DATA_ENCRYPTION_KEYRING, {
          tenantId,
          externalRef: body.externalRef,
          name: body.name,
          bvn: body.bvn,
        });
        if (customer.kyc_tier >= 2 && customer.name !== holderName) {
          throw new AppError(
            'conflict',
            'kyc_verified_meanwhile',
            `the customer's identity was verified under "${customer.name}" while the account was being registered under "${holderName}": nothing was recorded; provision again (with a new Idempotency-Key)`,
          );
        }
        const account = await createAccountsRepo(trx).insert({
          id: uuidv7(),
          tenantId,
          customerId: customer.id,
          accountRef,
          bankAccountNumber: registered.bankAccountNumber,
          bankAccountName: registered.bankAccountName,
          bankName: registered.bankName,
          callbackUrl: body.callbackUrl ?? null,
          expectedAmount: body.expectedAmount ?? null,
          ...terms,
          metadata: body.metadata ?? {},
        });
        if (idempotencyKey) await createIdempotencyRepo(trx).attachResource(tenantId, 'account', idempotencyKey, account.id);
        return account;
      });
    },

    /** One expiry pass: every dynamic account past its expiry marked expired; how many it marked. */
    async expireDue(): Promise<{ expired: number; full: boolean }> {
      const expired = await accounts.expireDue(EXPIRY_BATCH);
      return { expired: expired.length, full: expired.length >= EXPIRY_BATCH };
    },

    /** One more than `limit` rows, for the caller's paging; with `metadata`, only the accounts carrying every pair of it. */
    async list(tenantId: string, afterId: string | null, limit: number, metadata?: Metadata): Promise<AccountRecord[]> {
      return accounts.list(tenantId, afterId, limit + 1, metadata);
    },

    /**
     * Merges `change` into the account's metadata (a null value deletes its key), under the account row's lock so two
     * changes at once both land; the result is bounded as on create. Audited with the keys set and deleted.
     */
    async changeMetadata(tenantId: string, accountRef: string, change: Record<string, string | null>): Promise<AccountRecord> {
      return db.transaction(async (trx) => {
        const store = createAccountsRepo(trx);
        const account = await store.findByRefForUpdate(tenantId, accountRef);
        if (!account) throw new NotFoundError('account not found');
        const changed = await store.setMetadata(account.id, mergedMetadata(account.metadata, change));
        await createAuditLog(trx).recordAs(
          tenantId,
          API_KEY_ACTOR,
          'account.metadata_changed',
          { type: 'account', id: accountRef },
          metadataChangeDetail(change),
        );
        return changed;
      });
    },

    /** For operators: the accounts a reversal left below zero, which settle nothing until topped up. */
    async inDeficit(tenantId: string): Promise<AccountRecord[]> {
      return accounts.listInDeficit(tenantId, DEFICIT_LIST_LIMIT);
    },

    /** One more than `limit` rows, for the caller's paging; with `metadata`, only the accounts carrying every pair of it. */
    search(tenantId: string, text: string | null, afterId: string | null, limit: number, metadata?: Metadata): Promise<AccountSearchHit[]> {
      return accounts.search(tenantId, text, afterId, limit + 1, metadata);
    },

    /** A customer's accounts, oldest first (the caller has found the customer). */
    forCustomer(tenantId: string, customerId: string): Promise<AccountRecord[]> {
      return accounts.listForCustomer(tenantId, customerId);
    },

    async firstForCustomer(tenantId: string, customerId: string): Promise<AccountRecord> {
      const account = await accounts.findFirstForCustomer(tenantId, customerId);
      if (!account) throw new NotFoundError('no account linked to this customer');
      return account;
    },

    async balance(tenantId: string, accountRef: string): Promise<AccountBalance> {
      const account = await find(tenantId, accountRef);
      return { account, funds: (await accountFundsOf(db, [account.id])).get(account.id)!, asOf: new Date() };
    },

    /** The account's balance as of `at` (a past instant; the schema refuses a future one): zero before its first entry. */
    async balanceAt(tenantId: string, accountRef: string, at: Date): Promise<{ account: AccountRecord; balance: BalanceAt }> {
      const account = await find(tenantId, accountRef);
      return { account, balance: (await balancesAt(db, [account.id], at)).get(account.id)! };
    },

    /** The account's Africa/Lagos days `from` to `to` (YYYY-MM-DD), each with its opening, credits, debits and closing. */
    async dailyBalances(
      tenantId: string,
      accountRef: string,
      from: string,
      to: string,
    ): Promise<{ account: AccountRecord; days: DailyBalance[] }> {
      if (from > to) throw new BadRequestError('invalid_period', 'from must not be after to');
      if (daysCounted(from, to) > MAX_DAILY_BALANCE_DAYS)
        throw new BadRequestError('invalid_period', `from to to spans ${daysCounted(from, to)} days; at most ${MAX_DAILY_BALANCE_DAYS}`);
      const today = todayInZone(new Date());
      if (to > today) throw new BadRequestError('invalid_period', `to must not be after today (${today}, ${DAILY_BALANCES_TIME_ZONE})`);
      const account = await find(tenantId, accountRef);
      return { account, days: await dailyBalancesOf(db, account.id, from, to, DAILY_BALANCES_TIME_ZONE) };
    },

    /** The ledger's read of each account's money (accounts that exist; the caller has found them). */
    fundsOf(accountIds: string[]): Promise<Map<string, AccountFunds>> {
      return accountFundsOf(db, accountIds);
    },
  };
}

export type AccountsService = ReturnType<typeof createAccountsService>;
