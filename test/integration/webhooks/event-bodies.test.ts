import assert from 'node:assert/strict';
import knex, { type Knex } from 'knex';
import {
  EVENT_CATALOGUE,
  EVENT_TYPES,
  eventData,
  eventDataSql,
  eventDataWithOptionalSql,
  type EventInput,
  type EventType,
} from '../../../src/events/event-catalogue';

const GROUP = '0190f0c8-9a1e-7c3b-8f00-1234567890ab';
const CUSTOMER = '0190f0c8-9a1e-7c3b-8f00-0000000000c1';
/** Text a JSON writer must escape, and text it must not. */
const AWKWARD = `O'Brien "Ada" \\ tab\tline\nnaïve ₦ 😀 \u0001`;

/** Inputs of every type (the compiler asks for each new one), at the edges of each field's format. */
const SAMPLES: { [T in EventType]: Array<EventInput<T>> } = {
  'payment.received': [
    {
      transactionGroupId: GROUP,
      accountRef: 'ACC-1',
      amount: 500_000n,
      gross_amount: 502_500n,
      provider_fee: 2_500n,
      senderName: AWKWARD,
      narration: '',
    },
    {
      transactionGroupId: GROUP,
      accountRef: 'ACC-1',
      amount: 1n,
      gross_amount: 1_001n,
      provider_fee: 1_000n,
      senderName: 'A',
      narration: AWKWARD,
    },
  ],
  'payment.mismatch_returned': [
    { transactionGroupId: GROUP, accountRef: 'ACC-1', amount: 99_950n, variance: 'under', merchantTxRef: 'MTX-3' },
    { transactionGroupId: GROUP, accountRef: 'ACC-1', amount: 1n, variance: 'after_expiry', merchantTxRef: 'MTX-4' },
  ],
  'payment.mismatch_held': [{ transactionGroupId: GROUP, accountRef: 'ACC-1', amount: 5n, variance: 'over', reason: AWKWARD }],
  'payment.refund_created': [
    {
      refundId: CUSTOMER,
      transactionGroupId: GROUP,
      accountRef: 'ACC-1',
      amount: 400_000n,
      merchantTxRef: 'MTX-5',
      reason: AWKWARD,
    },
    { refundId: CUSTOMER, transactionGroupId: GROUP, accountRef: 'ACC-1', amount: 1n, merchantTxRef: 'MTX-6', reason: 'x' },
  ],
  'payment.refund_succeeded': [
    {
      refundId: CUSTOMER,
      transactionGroupId: GROUP,
      accountRef: 'ACC-1',
      amount: 400_000n,
      merchantTxRef: 'MTX-5',
      status: 'success',
      failureReason: null,
    },
  ],
  'payment.refund_failed': [
    {
      refundId: CUSTOMER,
      transactionGroupId: GROUP,
      accountRef: 'ACC-1',
      amount: 1n,
      merchantTxRef: 'MTX-6',
      status: 'failed',
      failureReason: AWKWARD,
    },
  ],
  'payment.confirmed': [{ transactionGroupId: GROUP, accountRef: 'ACC-1', amount: 0n }],
  'payment.reversed': [
    { transactionGroupId: GROUP, accountRef: 'ACC-1', amount: 99n, reason: AWKWARD },
    { transactionGroupId: GROUP, accountRef: 'ACC-1', amount: 100n, reason: null },
  ],
  'payment.restored': [{ transactionGroupId: GROUP, accountRef: 'ACC-1', amount: 123_456_789_012n, reason: 'restored' }],
  'payment.compensated': [{ transactionGroupId: GROUP, accountRef: 'ACC-1', amount: -2_505n, reason: 'taken back' }],
  'settlement.created': [{ merchantTxRef: 'MTX-1', accountRef: 'ACC-1', amount: 10n }],
  'settlement.succeeded': [{ merchantTxRef: 'MTX-1', accountRef: 'ACC-1', amount: 10n, status: 'success', reason: null }],
  'settlement.failed': [{ merchantTxRef: 'MTX-1', accountRef: 'ACC-1', amount: 10n, status: 'failed', reason: AWKWARD }],
  'settlement.refunded': [{ merchantTxRef: 'MTX-1', accountRef: 'ACC-1', amount: 10n, status: 'refunded', reason: 'bank' }],
  'settlement.awaiting_approval': [
    { merchantTxRef: 'MTX-1', accountRef: 'ACC-1', amount: 10n, reasons: 'amount,new_destination', expiresAt: new Date(0) },
  ],
  'settlement.approved': [{ merchantTxRef: 'MTX-1', accountRef: 'ACC-1', amount: 10n, decidedBy: 'a@example.com', note: null }],
  'settlement.rejected': [{ merchantTxRef: 'MTX-1', accountRef: 'ACC-1', amount: 10n, decidedBy: 'a@example.com', note: AWKWARD }],
  'settlement.expired': [{ merchantTxRef: 'MTX-1', accountRef: 'ACC-1', amount: 10n, decidedBy: null, note: null }],
  'settlement.scheduled': [{ merchantTxRef: 'MTX-1', accountRef: 'ACC-1', amount: 10n, scheduledFor: new Date(0) }],
  'settlement.cancelled': [
    { merchantTxRef: 'MTX-1', accountRef: 'ACC-1', amount: 10n, scheduledFor: new Date(0), reason: 'cancelled' },
    { merchantTxRef: 'MTX-1', accountRef: 'ACC-1', amount: 10n, scheduledFor: new Date(0), reason: AWKWARD },
  ],
  'velocity_rule.triggered': [
    {
      ruleId: GROUP,
      action: 'refuse',
      subject: 'payouts',
      accountRef: 'ACC-1',
      amount: 10n,
      merchantTxRef: null,
      transactionGroupId: null,
      message: AWKWARD,
    },
    {
      ruleId: GROUP,
      action: 'review',
      subject: 'payouts',
      accountRef: 'ACC-1',
      amount: 250_050n,
      merchantTxRef: 'MTX-1',
      transactionGroupId: null,
      message: null,
    },
    {
      ruleId: GROUP,
      action: 'hold',
      subject: 'credits',
      accountRef: 'ACC-1',
      amount: 5_000_00n,
      merchantTxRef: null,
      transactionGroupId: GROUP,
      message: AWKWARD,
    },
  ],
  'transfer.completed': [
    { transferId: GROUP, fromAccountRef: 'ACC-1', toAccountRef: 'ACC-2', amount: 250_050n, narration: AWKWARD, heldAmount: 50n },
    { transferId: GROUP, fromAccountRef: 'ACC-2', toAccountRef: 'ACC-1', amount: 1n, narration: '', heldAmount: 0n },
  ],
  'transfer.awaiting_approval': [
    { transferId: GROUP, fromAccountRef: 'ACC-1', toAccountRef: 'ACC-2', amount: 250_050n, expiresAt: new Date(0) },
  ],
  'transfer.approved': [
    { transferId: GROUP, fromAccountRef: 'ACC-1', toAccountRef: 'ACC-2', amount: 10n, decidedBy: 'a@example.com', note: null },
  ],
  'transfer.rejected': [
    { transferId: GROUP, fromAccountRef: 'ACC-1', toAccountRef: 'ACC-2', amount: 10n, decidedBy: 'a@example.com', note: AWKWARD },
  ],
  'transfer.expired': [{ transferId: GROUP, fromAccountRef: 'ACC-1', toAccountRef: 'ACC-2', amount: 10n, decidedBy: null, note: null }],
  'settlement_batch.completed': [
    { batchId: GROUP, status: 'completed_with_failures', items: 5_000, success: 4_998, failed: 2, refunded: 0 },
    { batchId: GROUP, status: 'cancelled', items: 1, success: 0, failed: 1, refunded: 0 },
  ],
  'settlement_batch.awaiting_approval': [
    { batchId: GROUP, items: 5_000, total: 250_050n, reasons: 'total,item_count', expiresAt: new Date(0) },
  ],
  'settlement_batch.approved': [{ batchId: GROUP, items: 3, total: 10n, decidedBy: 'a@example.com', note: null }],
  'settlement_batch.rejected': [{ batchId: GROUP, items: 3, total: 10n, decidedBy: 'a@example.com', note: AWKWARD }],
  'settlement_batch.expired': [{ batchId: GROUP, items: 1, total: 0n, decidedBy: null, note: null }],
  'kyc.approved': [{ customerId: CUSTOMER, externalRef: AWKWARD, tier: '2', reason: null }],
  'kyc.rejected': [{ customerId: CUSTOMER, externalRef: 'x', tier: null, reason: 'no match' }],
  'kyc.limit_exceeded': [
    {
      transactionGroupId: GROUP,
      accountRef: 'ACC-1',
      amount: 6_000_000n,
      heldAmount: 1_000_000n,
      tier: 1,
      limit: 'single_credit',
      limitAmount: 5_000_000n,
    },
  ],
  'kyc.hold_released': [
    { customerId: CUSTOMER, transactionGroupId: null, amount: 1_000_000n, reason: 'tier_raised' },
    { customerId: CUSTOMER, transactionGroupId: GROUP, amount: 5n, reason: 'operator' },
  ],
  'kyc.hold_returned': [
    { customerId: CUSTOMER, transactionGroupId: GROUP, accountRef: 'ACC-1', amount: 1_000_000n, merchantTxRef: 'MTX-2' },
  ],
  'lien.placed': [
    { lienId: GROUP, accountRef: 'ACC-1', amount: 1n, reason: 'fraud_review', expiresAt: new Date('2026-11-28T09:08:07.006Z') },
    { lienId: GROUP, accountRef: AWKWARD, amount: 1_000_000_000_00n, reason: 'debt_recovery', expiresAt: null },
  ],
  'lien.lifted': [{ lienId: GROUP, accountRef: 'ACC-1', amount: 300_00n }],
  'lien.expired': [{ lienId: GROUP, accountRef: 'ACC-1', amount: 5n }],
  'account.frozen': [
    { accountRef: 'ACC-1', frozenFor: 'debits', reason: 'regulatory_order' },
    { accountRef: AWKWARD, frozenFor: 'both', reason: 'customer_request' },
  ],
  'account.unfrozen': [{ accountRef: AWKWARD }],
  'webhook_endpoint.disabled': [
    { endpointId: CUSTOMER, url: 'https://example.com/hook', failingSince: new Date('2026-11-28T09:08:07.006Z'), reason: AWKWARD },
    { endpointId: CUSTOMER, url: 'https://example.com/hook', failingSince: new Date('2026-01-01T00:00:00.000Z'), reason: 'x' },
  ],
};

/** An input value as a named binding cast to its database type. */
function bound(name: string, value: unknown): { sql: string; binding: unknown } {
  if (typeof value === 'bigint') return { sql: `CAST(:${name} AS bigint)`, binding: value.toString() };
  if (typeof value === 'number') return { sql: `CAST(:${name} AS smallint)`, binding: value };
  if (value instanceof Date) return { sql: `CAST(:${name} AS timestamptz)`, binding: value.toISOString() };
  return { sql: `CAST(:${name} AS text)`, binding: value };
}

describe('event bodies: one definition per type, in TypeScript and in SQL', () => {
  let db: Knex;
  before(() => {
    db = knex({ client: 'pg', connection: process.env.DATABASE_URL!, pool: { min: 0, max: 1 } });
  });
  after(() => db.destroy());

  for (const type of EVENT_TYPES) {
    it(`${type}: the SQL body is the TypeScript body, byte for byte as an endpoint receives it, and the catalogue's schema accepts it`, async () => {
      for (const input of SAMPLES[type] as Array<EventInput<typeof type>>) {
        const expressions: Record<string, string> = {};
        const bindings: Record<string, unknown> = {};
        for (const [name, value] of Object.entries(input)) {
          const { sql, binding } = bound(`input_${name}`, value);
          expressions[name] = sql;
          bindings[`input_${name}`] = binding;
        }
        const { rows } = (await db.raw(`SELECT ${eventDataSql(type, expressions as never)} AS data`, bindings as never)) as {
          rows: Array<{ data: unknown }>;
        };
        const inTypeScript = eventData(type, input as never);
        assert.equal(JSON.stringify(rows[0]!.data), JSON.stringify(inTypeScript));
        assert.deepEqual(EVENT_CATALOGUE[type].data.parse(inTypeScript), inTypeScript);
      }
    });
  }

  it("payment.received of a dynamic account: the judgement appended in SQL to the body's text is the TypeScript body with it, byte for byte", async () => {
    const judgements = [
      { expectedAmount: 1_000_000n, amountReceived: 999_999n, variance: 'under', mismatchAction: 'return' },
      { expectedAmount: null, amountReceived: 1n, variance: 'after_expiry', mismatchAction: 'flagged' },
      { expectedAmount: 5n, amountReceived: 5n, variance: 'exact', mismatchAction: 'none' },
    ] as const;
    for (const base of SAMPLES['payment.received']) {
      for (const judgement of judgements) {
        const { rows } = (await db.raw(
          `SELECT ${eventDataWithOptionalSql('payment.received', 'CAST(:body AS text)', {
            expectedAmount: 'CAST(:expected AS bigint)',
            amountReceived: 'CAST(:received AS bigint)',
            variance: 'CAST(:variance AS text)',
            mismatchAction: 'CAST(:action AS text)',
          })} AS body`,
          {
            body: JSON.stringify(eventData('payment.received', base)),
            expected: judgement.expectedAmount === null ? null : judgement.expectedAmount.toString(),
            received: judgement.amountReceived.toString(),
            variance: judgement.variance,
            action: judgement.mismatchAction,
          },
        )) as { rows: Array<{ body: string }> };
        const inTypeScript = eventData('payment.received', { ...base, ...judgement });
        assert.equal(rows[0]!.body, JSON.stringify(inTypeScript));
        assert.deepEqual(EVENT_CATALOGUE['payment.received'].data.parse(inTypeScript), inTypeScript);
      }
    }
  });
});
