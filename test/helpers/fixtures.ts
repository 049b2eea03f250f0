import { randomUUID } from 'node:crypto';
import { uuidv7 } from '../../src/ids';
import type { LedgerEntry } from '../../src/ledger/ledger.types';
import { signProviderEvent } from '../../src/provider/spec-provider/webhook-signature';
import { call, type HttpResponse } from './http';
import type { Stack } from './stack';

export interface ProvisionedAccount {
  ID: string;
  AccountRef: string;
  CustomerID: string;
  BankAccountNumber: string;
  CallbackURL: string | null;
  [field: string]: unknown;
}

export async function provisionAccount(stack: Stack, apiKey: string, body: Record<string, unknown> = {}): Promise<ProvisionedAccount> {
  const response = await call(stack.apiUrl, 'POST', '/v1/accounts', {
    apiKey,
    body: { externalRef: `cust-${randomUUID()}`, name: 'Ada Obi', ...body },
  });
  if (response.status !== 201) throw new Error(`provisioning failed: ${response.status} ${response.text}`);
  return response.body as ProvisionedAccount;
}

/** Posts a credit straight through the posting engine (confirmed by default), to give an account money to settle. */
export async function fundAccount(
  stack: Stack,
  accountId: string,
  kobo: bigint,
  status: 'confirmed' | 'provisional' = 'confirmed',
): Promise<LedgerEntry> {
  const [entry] = await stack.infra.db.transaction((trx) =>
    stack.services.postingEngine.post(trx, accountId, [
      {
        direction: 'credit',
        kind: 'payment',
        amount: kobo,
        status,
        narration: 'test funding',
        providerTxnRef: `fund-${randomUUID()}`,
        transactionGroupId: uuidv7(),
      },
    ]),
  );
  return entry!;
}

export interface PaymentEventOptions {
  accountRef: string;
  amount?: number;
  fee?: number;
  requestId?: string;
  transactionId?: string;
  senderName?: string;
  narration?: string;
  eventType?: string;
  /** The payer's account and bank, as the webhook's customer names them. */
  senderAccountNumber?: string;
  senderBankName?: string;
}

/** A provider payment_success event as SPEC.md shapes it. */
export function paymentEvent(options: PaymentEventOptions): Record<string, unknown> {
  return {
    event_type: options.eventType ?? 'payment_success',
    requestId: options.requestId ?? randomUUID(),
    data: {
      merchant: { userId: 'merchant-user', walletId: 'wallet-1', walletBalance: 1000 },
      transaction: {
        transactionId: options.transactionId ?? `API-VACT_TRA-${randomUUID()}`,
        type: 'vact_transfer',
        time: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'),
        responseCode: '',
        transactionAmount: options.amount ?? 5025,
        fee: options.fee ?? 25,
        currency: 'NGN',
        aliasAccountReference: options.accountRef,
        narration: options.narration ?? 'Invoice 1042',
      },
      customer: {
        senderName: options.senderName ?? 'ADA OBI',
        accountNumber: options.senderAccountNumber ?? '0123456789',
        bankName: options.senderBankName ?? 'Sandbox Bank',
      },
    },
  };
}

/** Sends an event to /webhooks/provider signed with the stack's secret (or a forged signature). */
export function sendProviderEvent(
  stack: Stack,
  payload: unknown,
  options: { forged?: boolean; secret?: string; headerPrefix?: 'provider' | 'nomba'; rawBody?: string } = {},
): Promise<HttpResponse> {
  const timestamp = new Date().toISOString();
  const secret = options.secret ?? (options.forged ? 'not-the-provider-secret' : stack.config.PROVIDER_WEBHOOKS_SIGNING_SECRET);
  const prefix = options.headerPrefix ?? 'provider';
  return call(stack.apiUrl, 'POST', '/webhooks/provider', {
    rawBody: options.rawBody ?? JSON.stringify(payload),
    headers: { [`${prefix}-signature`]: signProviderEvent(secret, payload, timestamp), [`${prefix}-timestamp`]: timestamp },
  });
}

export async function eventsFor(
  stack: Stack,
  requestId: string,
): Promise<Array<{ category: string; signature_valid: boolean; error: string | null; flags: string[] }>> {
  return stack.infra
    .db('inbound_events')
    .where({ request_id: requestId })
    .orderBy('id')
    .select('category', 'signature_valid', 'error', 'flags');
}

export async function statement(stack: Stack, apiKey: string, accountRef: string, query = ''): Promise<HttpResponse> {
  return call(stack.apiUrl, 'GET', `/v1/accounts/${accountRef}/statement${query}`, { apiKey });
}

/** A statement entry's fields as the spec lists them: every line but a transfer's (which adds CounterpartAccountRef) has exactly these. */
export const SPEC_ENTRY_FIELDS = [
  'ID',
  'Direction',
  'Amount',
  'Fee',
  'Currency',
  'Status',
  'Narration',
  'ProviderTxnRef',
  'TransactionGroupId',
  'Kind',
  'ReversesEntryID',
  'CreatedAt',
];
