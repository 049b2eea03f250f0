import { randomToken } from '../ids';

export function newMerchantTxRef(): string {
  return `mtx_${randomToken(20)}`;
}

/** Attempt n of a settlement goes to the provider as `<merchantTxRef>-<n>`. */
export function attemptReference(merchantTxRef: string, attemptNo: number): string {
  return `${merchantTxRef}-${attemptNo}`;
}

export function baseReference(providerRef: string): string {
  return providerRef.replace(/-\d+$/, '');
}
