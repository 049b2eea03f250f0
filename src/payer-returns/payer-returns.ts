import type { AuditActor } from '../audit/audit-log';
import type { Db, DbOrTrx, Trx } from '../db';
import { AppError, BadRequestError, ConflictError } from '../errors';
import type { Metadata } from '../http/metadata';
import type { Kobo } from '../money';
import { banksNamed, type ListedBank } from './payer-bank';
import { namesMatch } from './payer-name';
import { createPayersRepo } from './payers.repo';

/**
 * The settlement machinery as a payment back to its payer needs it (handed over by the container, since settlements
 * sit above the returns): the bank list; the provider's name for an account (null when its bank has none of that
 * number); and a settlement paying the name looked up, whose `beforeDebit` runs in its transaction before the debit
 * is posted and `onCreated` (when given) after it; the settlement's merchantTxRef.
 */
export interface ReturnPayouts {
  banks(): Promise<ListedBank[]>;
  accountName(tenantId: string, destination: { accountNumber: string; bankCode: string }): Promise<string | null>;
  pay(
    tenantId: string,
    accountRef: string,
    request: PayBackRequest & { bankCode: string; accountNumber: string; accountName: string },
    hooks: PayBackHooks,
  ): Promise<{ merchantTxRef: string }>;
}

/**
 * What is paid back: `heldMoney` when it is money held of the payer's credit, which was never the customer's to spend
 * (outside the customer's daily payout limit); otherwise the customer's own spendable money (a refund), which counts
 * toward that limit as any payout does.
 */
export interface PayBackRequest {
  amount: Kobo;
  narration: string;
  metadata?: Metadata;
  heldMoney: boolean;
}

/**
 * Who asked for a payment back to a payer, when the tenant's approval policy and velocity rules judge it as a payout
 * somebody asked for (a refund); a return of held money names none.
 */
export type ReturnMaker = { kind: 'user'; user: AuditActor } | { kind: 'api_key'; apiKeyId: string };

/**
 * `beforeDebit` runs in the settlement's transaction just before its debit is posted; `onCreated` once the settlement
 * is made (`pending`) or, for a `maker`'s payout the approval policy holds, once it is held (`awaiting_approval`: its
 * money reserved, no debit yet), in that transaction.
 */
export interface PayBackHooks {
  beforeDebit: (trx: Trx, debit: { debitEntryId: string; merchantTxRef: string }) => Promise<void>;
  onCreated?: (trx: DbOrTrx, settlement: { merchantTxRef: string; status: string }) => Promise<void>;
  maker?: ReturnMaker;
}

/** The payer's account as a payment names it (the number, at the bank its bank name means), and the provider's name for it now. */
export interface PayerAccount {
  payerName: string;
  bankCode: string;
  accountNumber: string;
  accountName: string;
  /** Whether the provider's name for the account is the payer's (see namesMatch). */
  namesMatch: boolean;
}

/** The provider names the payer's account otherwise than the payment names its payer: nothing is paid; `remedy` says what may be done. */
export class PayerNameMismatchError extends AppError {
  constructor(payer: PayerAccount, remedy: string) {
    super(
      'conflict',
      'payer_name_mismatch',
      `the provider names account ${payer.accountNumber} (bank ${payer.bankCode}) "${payer.accountName}", not "${payer.payerName}" as the payment names its payer: ${remedy}`,
    );
  }
}

/**
 * Money paid back to the payer of a credit, one path for every such payment (a return of held money by an operator,
 * the service's return of a dynamic account's mismatched payment, a tenant's refund): the payer's account found from
 * the payment and looked up at the provider, and a settlement of the account paying the name looked up.
 */
export function createPayerReturns(deps: { db: Db; payouts: ReturnPayouts }) {
  const { db, payouts } = deps;
  const payers = createPayersRepo(db);

  /** The payer's bank: the one chosen, or the one bank the webhook's bank name means in the bank list. */
  async function payerBankCode(bankName: string | null, chosen: string | undefined): Promise<string> {
    if (chosen !== undefined) return chosen;
    const candidates = bankName ? banksNamed(bankName, await payouts.banks()) : [];
    if (candidates.length === 1) return candidates[0]!.code;
    const named = bankName ? `"${bankName}"` : 'no bank';
    throw new BadRequestError(
      'bank_code_required',
      candidates.length === 0
        ? `the payment names ${named}, which matches no bank in the bank list: choose the payer's bankCode`
        : `the payment names ${named}, which matches several banks: choose the payer's bankCode from ${candidates.map((bank) => `${bank.code} (${bank.name})`).join(', ')}`,
    );
  }

  return {
    /**
     * The payer's account of the credit `entryId` (the number its payment names, at the bank its bank name means or
     * `chosenBankCode`) and the provider's name for it, looked up now; nothing is written. The account must exist.
     */
    async payerAccountOf(tenantId: string, entryId: string, chosenBankCode: string | undefined): Promise<PayerAccount> {
      const payer = await payers.payerOf(entryId);
      if (!payer?.accountNumber || !/^\d{10}$/.test(payer.accountNumber)) {
        throw new ConflictError("the payment does not name the payer's account number: it cannot be paid back to the payer");
      }
      const accountNumber = payer.accountNumber;
      const bankCode = await payerBankCode(payer.bankName, chosenBankCode);
      const accountName = await payouts.accountName(tenantId, { accountNumber, bankCode });
      if (accountName === null) {
        throw new AppError(
          'unprocessable',
          'payer_account_not_found',
          `the provider finds no account ${accountNumber} at bank ${bankCode}, the payer's account as the payment names it: nothing was paid; if the payer's bank is another, choose its bankCode`,
        );
      }
      return { payerName: payer.name, bankCode, accountNumber, accountName, namesMatch: namesMatch(payer.name, accountName) };
    },

    /**
     * Pays `payment` from the account `accountRef` to the payer's account, as a settlement of the account paying the
     * name looked up (the settlement workflow and all its rules; see PayBackRequest for the daily payout limit): see PayBackHooks (the
     * caller judges and writes its own rows under the account's lock in `beforeDebit`). The settlement's merchantTxRef.
     */
    async payBack(
      tenantId: string,
      accountRef: string,
      payer: PayerAccount,
      payment: PayBackRequest,
      hooks: PayBackHooks,
    ): Promise<string> {
      const { bankCode, accountNumber, accountName } = payer;
      const { merchantTxRef } = await payouts.pay(tenantId, accountRef, { ...payment, bankCode, accountNumber, accountName }, hooks);
      return merchantTxRef;
    },
  };
}

export type PayerReturns = ReturnType<typeof createPayerReturns>;
