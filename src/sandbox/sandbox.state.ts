import { randomUUID } from 'node:crypto';
import type { Kobo } from '../money';
import type { ProviderTransactionStatus, ProviderVirtualAccount } from '../provider/provider.types';
import type { ProfileRule, TransferProfile } from './transfer-profiles';
import { newWalletId } from './sandbox-ids';

/** What the provider answers for a virtual account, as the sandbox keeps it. */
export type SandboxVirtualAccount = ProviderVirtualAccount & { currency: 'NGN' };

export interface SandboxPayment {
  transactionId: string;
  accountRef: string;
  amountKobo: Kobo;
  feeKobo: Kobo;
  /** What a lookup shows once the payment is visible and no longer processing. */
  status: ProviderTransactionStatus;
  senderName: string;
  narration: string;
  createdAt: string;
  /** Set when the provider changes the payment's status after the fact (a late success, a refund). */
  updatedAt?: string;
  /** A lookup answers "not found" until this long after creation (the provider's lookup lag). */
  lookupLagMs: number;
  /** A lookup shows PROCESSING until this long after creation, then `status`. */
  processingMs: number;
  /** The first this many lookups answer "not found", whatever the time. */
  notFoundLookups: number;
  /** Lookups answered so far. */
  lookups: number;
}

export interface SandboxTransfer {
  id: string;
  merchantTxRef: string;
  /** 1 for the first submission of its base reference, 2 for the next… */
  submissionNumber: number;
  amountKobo: Kobo;
  feeKobo: Kobo;
  accountNumber: string;
  accountName: string;
  bankCode: string;
  senderName: string;
  narration: string;
  profile: TransferProfile;
  /** Where this submission ends: the profile's final status, or a failure for the first N submissions. */
  final: 'SUCCESS' | 'PAYMENT_FAILED';
  status: ProviderTransactionStatus;
  /** Lookups answer "not found" until this time (lookup lag) and for this many more lookups. */
  visibleAtMs: number;
  hiddenLookupsLeft: number;
  /** After a refund with a lagging lookup: the status lookups still show until refundVisibleAtMs. */
  statusBeforeRefund: ProviderTransactionStatus | null;
  refundVisibleAtMs: number;
  /** The profile's refund is on its way: its clock started when a lookup first showed the final status. */
  refundScheduled: boolean;
  /** A payout was made, even if it was refunded later. */
  paidOut: boolean;
  createdAt: string;
  updatedAt: string;
}

export interface DeliveryResult {
  status: number | null;
  error?: string;
  at: string;
}

/** A webhook exactly as sent: the bytes and headers are kept so a redelivery is identical. */
export interface SandboxWebhookEvent {
  requestId: string;
  eventType: string;
  body: string;
  headers: Record<string, string>;
  deliveries: DeliveryResult[];
}

export interface FaultSettings {
  failureRate: number;
  /** Share of calls answered 429 with Retry-After: retryAfterSeconds. */
  throttleRate: number;
  retryAfterSeconds: number;
  latencyMs: number;
  /** Path prefixes the faults apply to; empty means every provider route. */
  routes: string[];
}

const DEFAULT_TOKEN_TTL_MS = 60 * 60_000;

/** Everything the simulated provider knows, in memory; reset() forgets all but the merchant's identity. */
export class SandboxState {
  readonly merchant = { userId: randomUUID(), walletId: newWalletId() };
  walletBalanceKobo: Kobo = 0n;

  readonly tokens = new Map<string, number>();
  tokenTtlMs = DEFAULT_TOKEN_TTL_MS;
  tokensIssued = 0;
  tokensRejected = 0;

  readonly accounts = new Map<string, SandboxVirtualAccount>();
  readonly accountNumbers = new Set<string>();
  readonly payments = new Map<string, SandboxPayment>();
  readonly transfers = new Map<string, SandboxTransfer>();
  readonly transferIdsByReference = new Map<string, string>();
  readonly submissionsPerBaseReference = new Map<string, number>();
  /** How many submissions of each reference were refused as duplicates although nothing was recorded. */
  readonly falseDuplicatesByReference = new Map<string, number>();
  readonly events: SandboxWebhookEvent[] = [];
  faults: FaultSettings;
  /** Control-route profiles, applied in order over the environment's and the magic values'. */
  profileRules: ProfileRule[] = [];
  nextProfileRuleId = 1;
  /** The profile each base reference was submitted with, for lookups (which carry no destination). */
  readonly profilesByBase = new Map<string, TransferProfile>();
  /** When each outage window (per base reference or destination) began. */
  readonly outageStarts = new Map<string, number>();
  /** Provider calls (submit, lookup) about each base reference, as epoch ms: tests bound calls per minute. */
  readonly callsByBase = new Map<string, Array<{ atMs: number; route: 'submit' | 'lookup' }>>();
  /** Names a control route gave account numbers at their banks (null: the bank no longer has the account). */
  readonly accountNames = new Map<string, string | null>();

  constructor(readonly configuredFaults: FaultSettings) {
    this.faults = { ...configuredFaults, routes: [...configuredFaults.routes] };
  }

  transferByReference(reference: string): SandboxTransfer | undefined {
    const id = this.transferIdsByReference.get(reference);
    return id === undefined ? undefined : this.transfers.get(id);
  }

  reset(): void {
    this.walletBalanceKobo = 0n;
    this.tokens.clear();
    this.tokenTtlMs = DEFAULT_TOKEN_TTL_MS;
    this.tokensIssued = 0;
    this.tokensRejected = 0;
    this.accounts.clear();
    this.accountNumbers.clear();
    this.payments.clear();
    this.transfers.clear();
    this.transferIdsByReference.clear();
    this.submissionsPerBaseReference.clear();
    this.falseDuplicatesByReference.clear();
    this.events.length = 0;
    this.profileRules = [];
    this.profilesByBase.clear();
    this.outageStarts.clear();
    this.callsByBase.clear();
    this.accountNames.clear();
    this.faults = { ...this.configuredFaults, routes: [...this.configuredFaults.routes] };
  }
}
