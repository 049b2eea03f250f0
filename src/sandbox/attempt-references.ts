/**
 * The settlement workflow submits attempt n of a transfer as `<merchantTxRef>-<n>`; the sandbox counts
 * magic outcomes and payouts per base reference.
 */
const ATTEMPT_SUFFIX_RE = /-\d+$/;

export function baseReference(reference: string): string {
  return reference.replace(ATTEMPT_SUFFIX_RE, '');
}

/** True for `<merchantTxRef>` itself and `<merchantTxRef>-<n>`. */
export function isAttemptOf(reference: string, merchantTxRef: string): boolean {
  if (reference === merchantTxRef) return true;
  return reference.startsWith(`${merchantTxRef}-`) && /^\d+$/.test(reference.slice(merchantTxRef.length + 1));
}
