import { randomBytes, randomInt, randomUUID } from 'node:crypto';

/** Provider timestamps carry whole seconds: 2026-11-20T09:15:30Z. */
export function isoSeconds(date: Date = new Date()): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function shortCode(): string {
  return randomBytes(3).toString('hex').slice(0, 5).toUpperCase();
}

/** Shaped like the provider's inbound ids: API-VACT_TRA-9A8B7-<uuid>. */
export function newPaymentTransactionId(): string {
  return `API-VACT_TRA-${shortCode()}-${randomUUID()}`;
}

export function newTransferId(): string {
  return `API-BANK_TRF-${shortCode()}-${randomUUID()}`;
}

/** 24 hex characters, like the provider's wallet ids. */
export function newWalletId(): string {
  return randomBytes(12).toString('hex');
}

export function randomAccountNumber(): string {
  return String(randomInt(0, 10_000_000_000)).padStart(10, '0');
}
