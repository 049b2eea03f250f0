import { Counter, type Registry } from 'prom-client';
import { METRIC_PREFIX } from './registry';

/** The settlement reference watch: its lookups by answer, and the payouts it found the ledger does not count. */
export function createSettlementWatchMetrics(registry: Registry) {
  const lookups = new Counter({
    name: `${METRIC_PREFIX}settlement_watch_lookups_total`,
    help: 'Provider lookups of settlement references the ledger failed or refunded, by answer (success, other, not_found, unavailable)',
    labelNames: ['answer'],
    registers: [registry],
  });
  const paidWithoutDebit = new Counter({
    name: `${METRIC_PREFIX}settlement_paid_without_debit_total`,
    help: 'Alert findings the settlement watch raised: a reference the provider paid that the ledger does not count as paid, by finding kind',
    labelNames: ['kind'],
    registers: [registry],
  });
  return {
    lookup(answer: 'success' | 'other' | 'not_found' | 'unavailable'): void {
      lookups.inc({ answer });
    },
    raised(kind: string): void {
      paidWithoutDebit.inc({ kind });
    },
  };
}

export type SettlementWatchMetrics = ReturnType<typeof createSettlementWatchMetrics>;
