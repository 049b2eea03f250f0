import { formatKobo } from '../money';
import { FINDINGS, isPlatformDecided, outcomeOf } from './findings';
import type { ExceptionRecord } from './reconciliation-exceptions.repo';
import type { DayDifference, RunRecord } from './reconciliation-runs.repo';
import type { ExceptionView, RunView } from './reconciliation.schemas';

export function presentRun(run: RunRecord): RunView {
  return {
    ID: run.id,
    ParentRunID: run.parentRunId,
    Trigger: run.trigger,
    RequestedBy: run.requestedByEmail,
    WindowFrom: run.windowFrom.toISOString(),
    WindowTo: run.windowTo.toISOString(),
    Status: run.status,
    Outcome: run.status === 'succeeded' ? outcomeOf(run) : null,
    ProviderTransactions: run.providerTransactions,
    Matched: run.matched,
    Repaired: run.repaired,
    Reported: run.reported,
    Alerts: run.alerts,
    InFlight: run.inFlight,
    Lookups: run.lookups,
    DaysCompared: run.daysCompared,
    DaysDiffering: run.daysDiffering,
    Error: run.error,
    CreatedAt: run.createdAt.toISOString(),
    StartedAt: run.startedAt?.toISOString() ?? null,
    FinishedAt: run.finishedAt?.toISOString() ?? null,
  };
}

export function presentException(finding: ExceptionRecord): ExceptionView {
  return {
    ID: finding.id,
    Kind: finding.kind,
    Title: FINDINGS[finding.kind]?.title ?? finding.kind,
    Severity: finding.severity,
    Status: finding.status,
    Subject: finding.subject,
    AccountRef: finding.accountRef,
    EntryID: finding.entryId,
    MerchantTxRef: finding.merchantTxRef,
    ProviderTxnID: finding.providerTxnId,
    Details: finding.details,
    FirstRunID: finding.firstRunId,
    LastRunID: finding.lastRunId,
    PlatformDecides: isPlatformDecided(finding.kind),
    Occurrences: finding.occurrences,
    RepairEntryID: finding.repairEntryId,
    Resolution: finding.resolution,
    ResolutionNote: finding.resolutionNote,
    ResolvedBy: finding.resolvedByEmail,
    ResolvedVia: finding.resolvedVia,
    ResolvedAt: finding.resolvedAt?.toISOString() ?? null,
    CreatedAt: finding.createdAt.toISOString(),
    UpdatedAt: finding.updatedAt.toISOString(),
  };
}

export function presentDay(day: DayDifference) {
  return {
    AccountRef: day.accountRef,
    Day: day.day,
    ProviderCount: day.providerCount,
    ProviderGross: formatKobo(day.providerGross),
    ProviderFee: formatKobo(day.providerFee),
    LedgerCount: day.ledgerCount,
    LedgerGross: formatKobo(day.ledgerGross),
    LedgerFee: formatKobo(day.ledgerFee),
  };
}
