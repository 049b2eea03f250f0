/**
 * The alert findings a settlement raises itself, outside any reconciliation run: a run that failed for
 * good and was parked, and an attempt left undecided past its overdue clock. Reconciliation's
 * exception queue keeps them; the container wires the port to it.
 */
export interface SettlementFinding {
  id: string;
  tenantId: string;
  kind: 'settlement_run_failed' | 'settlement_overdue';
  /** One open finding per kind and subject. */
  subject: string;
  accountId: string;
  settlementId: string;
  details: Record<string, unknown>;
}

/** True when the finding is new (none of its kind is open for its subject, and none was resolved). */
export type RaiseSettlementFinding = (finding: SettlementFinding) => Promise<boolean>;
