import { RESERVATION_KIND_NAMES, type ReservationKind } from '../../src/ledger/reservation-kinds';

/**
 * A balance's `reserved` breakdown as the API answers it: every declared kind, '0.00' but for the amounts given, so
 * a test comparing the whole breakdown names only the kinds it is about and holds when a kind is declared.
 */
export function reservedOf(amounts: Partial<Record<ReservationKind, string>> = {}): Record<ReservationKind, string> {
  return Object.fromEntries(RESERVATION_KIND_NAMES.map((kind) => [kind, amounts[kind] ?? '0.00'])) as Record<ReservationKind, string>;
}
