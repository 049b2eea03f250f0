import { NOT_KNOWN_IN_WINDOW } from '../contracts/confirmation-rules';
import type { ReconciliationOutcome } from '../contracts/reconciliation.contract';

/**
 * Everything a run can find. Repairs are made automatically (and recorded, `info`); every other
 * finding is only reported, `alert` where money moved or may have moved without the ledger knowing.
 */
export const FINDINGS = {
  missing_credit: {
    severity: 'info',
    repaired: true,
    title: 'A payment the provider never announced by webhook: credited as a webhook would have',
  },
  reversed_credit_restored: {
    severity: 'info',
    repaired: true,
    title: 'A credit reversed for lack of confirmation that the provider shows SUCCESS: restored',
  },
  settlement_refunded: {
    severity: 'info',
    repaired: true,
    title: 'A successful settlement the provider refunded: refunded by its own rule',
  },
  unknown_account: { severity: 'alert', repaired: false, title: 'A payment to an account number the service does not have' },
  payment_not_creditable: {
    severity: 'alert',
    repaired: false,
    title: 'A payment the provider shows that cannot be credited as it stands (currency or fee)',
  },
  payment_mismatch: {
    severity: 'warning',
    repaired: false,
    title: 'Amount, fee, account or currency differs between the provider and the ledger',
  },
  reversed_credit_provider_success: {
    severity: 'alert',
    repaired: false,
    title: 'A credit reversed for a reason other than time that the provider shows SUCCESS',
  },
  credit_failed_at_provider: {
    severity: 'alert',
    repaired: false,
    title: 'A confirmed credit the provider shows failed or refunded (resolve with a compensating debit)',
  },
  credit_unknown_to_provider: { severity: 'alert', repaired: false, title: 'A confirmed credit the provider does not know' },
  unknown_transfer: { severity: 'alert', repaired: false, title: 'A payout from the wallet that no settlement made' },
  settlement_paid_not_debited: {
    severity: 'alert',
    repaired: false,
    title: 'The provider paid a settlement reference the ledger failed or refunded: money left without a debit',
  },
  settlement_paid_twice: {
    severity: 'alert',
    repaired: false,
    title: 'The provider paid a second reference of a settlement already paid: the platform paid it from its own float',
  },
  settlement_debited_not_paid: {
    severity: 'alert',
    repaired: false,
    title: 'A settlement the ledger shows paid that the provider shows failed',
  },
  settlement_not_at_provider: {
    severity: 'alert',
    repaired: false,
    title: 'A settlement the ledger shows paid that the provider does not know',
  },
  settlement_mismatch: { severity: 'warning', repaired: false, title: 'A settlement whose amount differs at the provider' },
  settlement_stuck: { severity: 'warning', repaired: false, title: 'A settlement still pending long after its attempts' },
  settlement_overdue: {
    severity: 'alert',
    repaired: false,
    title: 'A settlement attempt the provider has neither paid nor failed past its overdue clock: still followed, a human should look',
  },
  settlement_run_failed: {
    severity: 'alert',
    repaired: false,
    title: 'A settlement run failed for good (a rule or an amount it cannot get past): parked, not restarted until an operator retries it',
  },
  wallet_difference: {
    severity: 'warning',
    repaired: false,
    title: "The provider's wallet differs from the ledger's balances beyond what is explained",
  },
  lookup_limit_reached: {
    severity: 'warning',
    repaired: false,
    title: 'More ledger records outside the listing than a run looks up one by one',
  },
  provider_budget_reached: {
    severity: 'warning',
    repaired: false,
    title: "A tenant's run spent its budget of provider calls and stopped reading before the end of its window",
  },
} as const;

export type FindingKind = keyof typeof FINDINGS;
export type Severity = (typeof FINDINGS)[FindingKind]['severity'];

/** Findings matching classifies provider rows into (the rest of FINDINGS come from other checks). */
export const ROW_FINDINGS: FindingKind[] = [
  'unknown_account',
  'payment_not_creditable',
  'payment_mismatch',
  'reversed_credit_provider_success',
  'credit_failed_at_provider',
  'credit_unknown_to_provider',
  'unknown_transfer',
  'settlement_paid_not_debited',
  'settlement_paid_twice',
  'settlement_debited_not_paid',
  'settlement_not_at_provider',
  'settlement_mismatch',
];

/**
 * Findings where money left the platform's float with no debit to answer it (a payout the ledger does
 * not count, a credit already paid on that the provider took back or never had). Only the platform
 * operator decides them (the CLI): a tenant sees them and cannot resolve, compensate or otherwise close them.
 */
export const PLATFORM_DECIDED: readonly FindingKind[] = [
  'settlement_paid_not_debited',
  'settlement_paid_twice',
  'credit_failed_at_provider',
  'credit_unknown_to_provider',
];

export const isPlatformDecided = (kind: FindingKind): boolean => PLATFORM_DECIDED.includes(kind);

/**
 * The reasons (as LIKE patterns) a reversal's narration gives when the provider still did not know a
 * payment when its window closed: today's, and the one reversals posted before it carry. Such a
 * reversal is the one reconciliation restores once the provider shows SUCCESS.
 */
export const NOT_CONFIRMED_IN_TIME = [
  `%${NOT_KNOWN_IN_WINDOW}%`,
  '%not confirmed by the provider within the confirmation window%',
] as const;

export function outcomeOf(counts: { alerts: number; reported: number; repaired: number }): ReconciliationOutcome {
  if (counts.alerts > 0) return 'alert';
  if (counts.reported > 0) return 'exceptions';
  if (counts.repaired > 0) return 'repaired';
  return 'clean';
}
