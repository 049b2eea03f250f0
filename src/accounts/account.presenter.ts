import type { BalanceAt, DailyBalance } from '../ledger/balance-history';
import type { AccountFunds } from '../ledger/ledger-reads';
import { RESERVATION_KIND_NAMES, type ReservationKind } from '../ledger/reservation-kinds';
import { presentMetadata } from '../http/metadata';
import { formatKobo } from '../money';
import type { AccountRecord } from './accounts.repo';
import type { VirtualAccountView } from './accounts.schemas';

export function presentAccount(account: AccountRecord): VirtualAccountView {
  return {
    ID: account.id,
    AccountRef: account.accountRef,
    BankAccountNumber: account.bankAccountNumber,
    BankAccountName: account.bankAccountName,
    BankName: account.bankName,
    Currency: account.currency,
    Status: account.status,
    CustomerID: account.customerId,
    CallbackURL: account.callbackUrl,
    ExpectedAmount: account.expectedAmount === null ? null : formatKobo(account.expectedAmount),
    ExpiresAt: account.expiresAt?.toISOString() ?? null,
    AmountPolicy: account.amountPolicy,
    OnMismatch: account.onMismatch,
    InDeficit: account.deficitSince !== null,
    DeficitSince: account.deficitSince?.toISOString() ?? null,
    ...presentMetadata('Metadata', account.metadata),
    CreatedAt: account.createdAt.toISOString(),
  };
}

/** The account's ledger balance as of `at` (GET …/balance?at=, on the API and the dashboard). */
export function presentBalanceAt(account: AccountRecord, balance: BalanceAt, at: Date) {
  return {
    accountRef: account.accountRef,
    currency: account.currency,
    ledgerBalance: formatKobo(balance.ledgerBalance),
    totalCredits: formatKobo(balance.creditsToDate),
    totalDebits: formatKobo(balance.debitsToDate),
    inDeficit: balance.ledgerBalance < 0n,
    asOf: at.toISOString(),
  };
}

/** The account's days with their opening, credits, debits and closing (GET …/daily-balances, on the API and the dashboard). */
export function presentDailyBalances(account: AccountRecord, days: DailyBalance[], timeZone: 'Africa/Lagos') {
  return {
    accountRef: account.accountRef,
    currency: account.currency,
    timeZone,
    days: days.map((day) => ({
      date: day.day,
      openingBalance: formatKobo(day.opening),
      credits: formatKobo(day.credits),
      debits: formatKobo(day.debits),
      closingBalance: formatKobo(day.closing),
    })),
  };
}

/** The account's freeze as the API speaks it, null when it is not frozen. */
export function presentFreeze(account: AccountRecord) {
  return account.freeze && { ...account.freeze, frozenAt: account.freeze.frozenAt.toISOString() };
}

/** The account's reserved money by kind, as the API speaks it. */
export function presentReserved(funds: AccountFunds): Record<ReservationKind, string> {
  return Object.fromEntries(RESERVATION_KIND_NAMES.map((kind) => [kind, formatKobo(funds.reserved[kind])])) as Record<
    ReservationKind,
    string
  >;
}
