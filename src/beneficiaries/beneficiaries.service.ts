import { sameAccountName } from '../account-names';
import { API_KEY_ACTOR, createAuditLog, type AuditAction, type AuditActor } from '../audit/audit-log';
import type { Config } from '../config';
import type { Db, DbOrTrx, Trx } from '../db';
import { AppError, NotFoundError } from '../errors';
import { mergedMetadata, metadataChangeDetail, type Metadata } from '../http/metadata';
import { isUuid, uuidv7 } from '../ids';
import { createBeneficiariesRepo, type BeneficiaryRecord } from './beneficiaries.repo';

export interface BankDestination {
  bankCode: string;
  accountNumber: string;
}

/** Where a payout to a beneficiary goes, and the name it pays. */
export interface PayoutDestination extends BankDestination {
  accountName: string;
}

/** The provider's name enquiry, as the settlements service asks it (the container wires it in). */
export interface NameEnquiry {
  /** One of the tenant's name lookups, as POST /v1/transfers/lookup answers: its bank checks, limit, 404 and 503. */
  lookup(tenantId: string, destination: BankDestination): Promise<string>;
  /**
   * The provider's name for the destination now, as part of a payout (which its own limit counts, not the
   * tenant's name lookups); null when the bank has no such account.
   */
  currentName(destination: BankDestination): Promise<string | null>;
}

/**
 * Another domain's hold on a beneficiary: why it may not be deleted now, or null. It runs inside the
 * delete's transaction while the beneficiary's row is locked, so a domain that locks the row (through
 * `lockBeneficiary`) before it starts using a beneficiary can never see it deleted under it.
 */
export type BeneficiaryUseCheck = (trx: Trx, beneficiary: BeneficiaryRecord) => Promise<string | null>;

/** Who saved or deleted a beneficiary, for the audit log: an API key's call, or a dashboard user. */
export type BeneficiaryActor = { tenantId: string } | AuditActor;

export interface NewBeneficiary extends BankDestination {
  nickname?: string | undefined;
  metadata?: Metadata | undefined;
}

const beneficiaryNotFound = () => new NotFoundError('beneficiary not found');

class BeneficiaryNameChangedError extends AppError {
  constructor(saved: string, current: string) {
    super(
      'conflict',
      'account_name_mismatch',
      `the beneficiary's account is now named "${current}" at the bank, not "${saved}" as saved: save the beneficiary again (POST /v1/beneficiaries) to confirm the new name before paying it`,
    );
  }
}

class BeneficiaryAccountGoneError extends AppError {
  constructor(beneficiary: BeneficiaryRecord) {
    super(
      'not_found',
      'beneficiary_account_not_found',
      `bank account not found: bank ${beneficiary.bankCode} no longer has the beneficiary's account ${beneficiary.accountNumber}`,
    );
  }
}

function recordAudit(
  trx: DbOrTrx,
  actor: BeneficiaryActor,
  action: AuditAction,
  beneficiary: BeneficiaryRecord,
  change: { previousAccountName?: string } | { set: string[]; deleted: string[] } = {},
): Promise<void> {
  const target = { type: 'beneficiary', id: beneficiary.id };
  const detail = {
    bankCode: beneficiary.bankCode,
    accountNumber: beneficiary.accountNumber,
    accountName: beneficiary.accountName,
    nickname: beneficiary.nickname,
    ...change,
  };
  const log = createAuditLog(trx);
  return 'email' in actor ? log.record(actor, action, target, detail) : log.recordAs(actor.tenantId, API_KEY_ACTOR, action, target, detail);
}

/** A tenant's saved payout destinations, each with the provider's name for it and when that name was checked. */
export function createBeneficiariesService(deps: {
  db: Db;
  config: Pick<Config, 'BENEFICIARY_NAME_MAX_AGE'>;
  names: NameEnquiry;
  uses: BeneficiaryUseCheck[];
}) {
  const { db, config, names, uses } = deps;
  const beneficiaries = createBeneficiariesRepo(db);

  async function find(tenantId: string, id: string): Promise<BeneficiaryRecord> {
    const beneficiary = isUuid(id) ? await beneficiaries.find(tenantId, id.toLowerCase()) : undefined;
    if (!beneficiary) throw beneficiaryNotFound();
    return beneficiary;
  }

  return {
    find,

    /** With `metadata`, only the beneficiaries carrying every pair of it. */
    list: (tenantId: string, afterId: string | null, limit: number, metadata?: Metadata): Promise<BeneficiaryRecord[]> =>
      beneficiaries.list(tenantId, afterId, limit, metadata),

    /**
     * Looks the destination's name up at the provider and saves it. A destination the tenant already saved
     * is not saved twice: its beneficiary takes the name just looked up (and the nickname and metadata, when given),
     * under its row lock; a name that changed (the name every payout to it pays from now on, a balance sweep's too) is
     * audited with the old name and the new.
     */
    async save(actor: BeneficiaryActor, request: NewBeneficiary): Promise<{ beneficiary: BeneficiaryRecord; created: boolean }> {
      const checkedAt = new Date();
      const accountName = await names.lookup(actor.tenantId, request);
      return db.transaction(async (trx) => {
        const repo = createBeneficiariesRepo(trx);
        // At most twice: an insert that finds a beneficiary saved meanwhile has waited for it, so the lock finds it next.
        for (;;) {
          const existing = await repo.lockDestination(actor.tenantId, request.bankCode, request.accountNumber);
          if (existing) {
            const given = { nickname: request.nickname, metadata: request.metadata };
            const beneficiary = await repo.refresh(existing.id, accountName, given, checkedAt);
            if (existing.accountName !== accountName)
              await recordAudit(trx, actor, 'beneficiary.renamed', beneficiary, { previousAccountName: existing.accountName });
            return { beneficiary, created: false };
          }
          const inserted = await repo.insert(
            {
              id: uuidv7(),
              tenantId: actor.tenantId,
              bankCode: request.bankCode,
              accountNumber: request.accountNumber,
              accountName,
              nickname: request.nickname,
              metadata: request.metadata,
            },
            checkedAt,
          );
          if (inserted) {
            await recordAudit(trx, actor, 'beneficiary.created', inserted);
            return { beneficiary: inserted, created: true };
          }
        }
      });
    },

    /**
     * Merges `change` into the beneficiary's metadata (a null value deletes its key), under its row's lock so two changes
     * at once both land; the result is bounded as on create. Audited with the keys set and deleted.
     */
    async changeMetadata(actor: BeneficiaryActor, id: string, change: Record<string, string | null>): Promise<BeneficiaryRecord> {
      if (!isUuid(id)) throw beneficiaryNotFound();
      return db.transaction(async (trx) => {
        const repo = createBeneficiariesRepo(trx);
        const beneficiary = await repo.lock(actor.tenantId, id.toLowerCase());
        if (!beneficiary) throw beneficiaryNotFound();
        const changed = await repo.setMetadata(beneficiary.id, mergedMetadata(beneficiary.metadata, change));
        await recordAudit(trx, actor, 'beneficiary.metadata_changed', changed, metadataChangeDetail(change));
        return changed;
      });
    },

    /** Deleted for new payouts; the row stays, so settlements made to it still read. */
    async remove(actor: BeneficiaryActor, id: string): Promise<void> {
      if (!isUuid(id)) throw beneficiaryNotFound();
      await db.transaction(async (trx) => {
        const repo = createBeneficiariesRepo(trx);
        const beneficiary = await repo.lock(actor.tenantId, id.toLowerCase());
        if (!beneficiary) throw beneficiaryNotFound();
        for (const use of uses) {
          const reason = await use(trx, beneficiary);
          if (reason) throw new AppError('conflict', 'beneficiary_in_use', `the beneficiary is in use: ${reason}`);
        }
        await repo.markDeleted(beneficiary.id);
        await recordAudit(trx, actor, 'beneficiary.deleted', beneficiary);
      });
    },

    /**
     * Where a payout to the beneficiary goes and the name it pays. A name checked longer ago than
     * BENEFICIARY_NAME_MAX_AGE is looked up again first: the same name renews the check; another name is
     * `409 account_name_mismatch` and an account the bank no longer has is a 404, with nothing written.
     */
    async forPayout(tenantId: string, beneficiaryId: string): Promise<PayoutDestination> {
      const saved = await find(tenantId, beneficiaryId);
      const destination = { bankCode: saved.bankCode, accountNumber: saved.accountNumber, accountName: saved.accountName };
      if (Date.now() - saved.nameCheckedAt.getTime() <= config.BENEFICIARY_NAME_MAX_AGE) return destination;
      const checkedAt = new Date();
      const current = await names.currentName(saved);
      if (current === null) throw new BeneficiaryAccountGoneError(saved);
      if (!sameAccountName(current, saved.accountName)) throw new BeneficiaryNameChangedError(saved.accountName, current);
      await beneficiaries.renewNameCheck(saved.id, current, checkedAt);
      return { ...destination, accountName: current };
    },
  };
}

export type BeneficiariesService = ReturnType<typeof createBeneficiariesService>;
