import { randomUUID } from 'node:crypto';
import type { Kobo } from '../money';
import type { ProviderTransactionStatus, ProviderVirtualAccount } from '../provider/provider.types';
import type { TransferScript } from './magic-values';
import { newWalletId } from './sandbox-ids';

/** What the provider answers for a virtual account, as the sandbox keeps it. */
export type SandboxVirtualAccount = ProviderVirtualAccount & { currency: 'NGN' };

export interface SandboxPayment {
  transactionId: string;
  accountRef: string;
  amountKobo: Kobo;
  feeKobo: Kobo;
  status: ProviderTransactionStatus;
  senderName: string;
  narration: string;
  createdAt: string;
  /** Set when the provider changes the payment's status after the fact (a late success, a refund). */
  updatedAt?: string;
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
  script: TransferScript;
  status: ProviderTransactionStatus;
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
  readonly events: SandboxWebhookEvent[] = [];
  faults: FaultSettings;

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
    this.events.length = 0;
    this.faults = { ...this.configuredFaults, routes: [...this.configuredFaults.routes] };
  }
}
