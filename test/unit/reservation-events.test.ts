import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { reservationEventsOf, reservationMadeEventsOf, type ReservationFacts } from '../../src/events/ledger-events';
import type { EndedReservation, EndedReservations, MadeReservation } from '../../src/ledger/ledger-results';

const TENANT = '0190f0c8-9a1e-7c3b-8f00-00000000000a';
const CUSTOMER = '0190f0c8-9a1e-7c3b-8f00-00000000000c';
const GROUP = '0190f0c8-9a1e-7c3b-8f00-1234567890ab';
const OTHER_GROUP = '0190f0c8-9a1e-7c3b-8f00-1234567890ac';
const ACCOUNT = '0190f0c8-9a1e-7c3b-8f00-0000000000a1';
const SECOND = '0190f0c8-9a1e-7c3b-8f00-0000000000a2';
const CREDIT = '0190f0c8-9a1e-7c3b-8f00-0000000000e1';
const OPERATOR = '0190f0c8-9a1e-7c3b-8f00-0000000000f1';
const DEBIT = '0190f0c8-9a1e-7c3b-8f00-0000000000d1';
const LIEN = '0190f0c8-9a1e-7c3b-8f00-0000000000c9';

const FACTS: ReservationFacts = {
  accounts: new Map([
    [ACCOUNT, { tenantId: TENANT, accountRef: 'ACC-1', customerId: CUSTOMER }],
    [SECOND, { tenantId: TENANT, accountRef: 'ACC-2', customerId: CUSTOMER }],
  ]),
  variances: new Map([[CREDIT, 'under' as const]]),
};

const reservation = (change: Partial<EndedReservation> = {}): EndedReservation => ({
  reservationId: '0190f0c8-9a1e-7c3b-8f00-0000000000b1',
  accountId: ACCOUNT,
  kind: 'kyc_limit',
  ownerId: CREDIT,
  transactionGroupId: GROUP,
  amount: 1_500_00n,
  ...change,
});

const ended = (change: Partial<EndedReservations>): EndedReservations => ({
  kind: 'reservations_ended',
  outcome: 'released',
  reason: null,
  entryId: null,
  userId: null,
  ended: [reservation()],
  ...change,
});

/** Each event as the outbox stores it: tenant, type and the data's bytes. */
const told = (result: EndedReservations, facts: ReservationFacts = FACTS) =>
  reservationEventsOf(result, facts).map((event) => ({ tenantId: event.tenantId, type: event.type, data: JSON.stringify(event.data) }));

describe('events of reservations ended', () => {
  it("an operator's release of a held credit is told as kyc.hold_released naming the credit's payment", () => {
    assert.deepEqual(told(ended({ reason: 'operator', userId: OPERATOR })), [
      {
        tenantId: TENANT,
        type: 'kyc.hold_released',
        data: `{"customerId":"${CUSTOMER}","transactionGroupId":"${GROUP}","amount":"1500.00","currency":"NGN","reason":"operator"}`,
      },
    ]);
  });

  it("a tier raised is told once, as the customer's total released, naming no payment; a release of nothing is not told", () => {
    const released = ended({
      reason: 'tier_raised',
      ended: [
        reservation({ transactionGroupId: null }),
        reservation({ accountId: SECOND, ownerId: OTHER_GROUP, transactionGroupId: null, amount: 250_00n }),
      ],
    });
    assert.deepEqual(told(released), [
      {
        tenantId: TENANT,
        type: 'kyc.hold_released',
        data: `{"customerId":"${CUSTOMER}","transactionGroupId":null,"amount":"1750.00","currency":"NGN","reason":"tier_raised"}`,
      },
    ]);
    assert.deepEqual(told(ended({ reason: 'tier_raised', ended: [] })), []);
  });

  it('a credit reversed or taken back is told by its reversal, not by the release of what was held of it', () => {
    assert.deepEqual(told(ended({ reason: 'credit_reversed' })), []);
  });

  it("a held credit posted by an operator's return is told as kyc.hold_returned with the settlement's merchantTxRef, whatever its kind", () => {
    const expected = {
      tenantId: TENANT,
      type: 'kyc.hold_returned',
      data: `{"customerId":"${CUSTOMER}","transactionGroupId":"${GROUP}","accountRef":"ACC-1","amount":"1500.00","currency":"NGN","merchantTxRef":"MTX-7"}`,
    };
    const returned = { outcome: 'posted', entryId: DEBIT, userId: OPERATOR } as const;
    assert.deepEqual(told(ended(returned), { ...FACTS, merchantTxRef: 'MTX-7' }), [expected]);
    assert.deepEqual(
      told(ended({ ...returned, ended: [reservation({ kind: 'payment_mismatch' })] }), { ...FACTS, merchantTxRef: 'MTX-7' }),
      [expected],
    );
  });

  it("a dynamic account's payment the service returns itself is told as payment.mismatch_returned with its variance", () => {
    const result = ended({ outcome: 'posted', entryId: DEBIT, ended: [reservation({ kind: 'payment_mismatch' })] });
    assert.deepEqual(told(result, { ...FACTS, merchantTxRef: 'MTX-8' }), [
      {
        tenantId: TENANT,
        type: 'payment.mismatch_returned',
        data: `{"transactionGroupId":"${GROUP}","accountRef":"ACC-1","amount":"1500.00","currency":"NGN","variance":"under","merchantTxRef":"MTX-8"}`,
      },
    ]);
    assert.throws(() => told(result), /merchantTxRef/, 'a return is told with its settlement');
  });

  it('an expiry of a held credit is told by nothing; a lien lifted or expired is told with what it still held', () => {
    assert.deepEqual(told(ended({ outcome: 'expired', ended: [reservation(), reservation({ kind: 'payment_mismatch' })] })), []);
    const lien = reservation({ kind: 'lien', ownerId: LIEN, transactionGroupId: null, amount: 7n });
    const data = `{"lienId":"${LIEN}","accountRef":"ACC-1","amount":"0.07","currency":"NGN"}`;
    assert.deepEqual(told(ended({ outcome: 'expired', ended: [lien] })), [{ tenantId: TENANT, type: 'lien.expired', data }]);
    assert.deepEqual(told(ended({ reason: 'lifted', userId: OPERATOR, ended: [lien] })), [{ tenantId: TENANT, type: 'lien.lifted', data }]);
  });

  it('a credit a freeze held, released, is not told as a KYC hold released', () => {
    const frozen = reservation({ kind: 'credit_freeze' });
    assert.deepEqual(told(ended({ reason: 'unfrozen', ended: [frozen] })), []);
    assert.deepEqual(told(ended({ reason: 'credit_reversed', ended: [frozen] })), []);
  });

  it('a lien placed is told as lien.placed with its amount, reason and expiry; another kind made tells nothing', () => {
    const made: MadeReservation = {
      kind: 'reserved',
      reservationId: '0190f0c8-9a1e-7c3b-8f00-0000000000b2',
      accountId: ACCOUNT,
      reservationKind: 'lien',
      reason: 'dispute',
      ownerId: LIEN,
      amount: 300_00n,
      expiresAt: new Date('2026-12-01T00:00:00.000Z'),
    };
    const account = FACTS.accounts.get(ACCOUNT)!;
    assert.deepEqual(
      reservationMadeEventsOf(made, account).map((event) => [event.type, JSON.stringify(event.data)]),
      [
        [
          'lien.placed',
          `{"lienId":"${LIEN}","accountRef":"ACC-1","amount":"300.00","currency":"NGN","reason":"dispute","expiresAt":"2026-12-01T00:00:00.000Z"}`,
        ],
      ],
    );
    assert.deepEqual(reservationMadeEventsOf({ ...made, reservationKind: 'kyc_limit', reason: 'balance' }, account), []);
  });
});

describe('the lint: money events are recorded only by src/events/', () => {
  type MoneyEvents = {
    moneyChangeKinds: (source: string) => Set<string>;
    moneyEventViolationsIn: (file: string, text: string, kinds: Set<string>) => string[];
  };
  const load = async () =>
    (await import(pathToFileURL(path.resolve(__dirname, '../../../scripts/lib/money-events.mjs')).href)) as MoneyEvents;

  it('finds a money event type named, or a change told as money given to recordChange, and nothing in recordChange of what moves no money', async () => {
    const { moneyChangeKinds, moneyEventViolationsIn } = await load();
    const changeEvents = `export function eventOfChange(change: Change): EventOf {
  switch (change.kind) {
    case 'hold_released': {
      const { customerId } = change;
      return told('kyc.hold_released', { customerId });
    }
    case 'kyc_decided': {
      return told(change.approved ? 'kyc.approved' : 'kyc.rejected', {});
    }
  }
}`;
    const kinds = moneyChangeKinds(changeEvents);
    assert.deepEqual([...kinds], ['hold_released']);
    const service = `await recordChange(trx, {
  kind: 'hold_released',
});
await recordChange(trx, {
  kind: 'kyc_decided',
});
await recordEvent(trx, { tenantId, type: 'payment.reversed', data });
// the ledger tells \`payment.reversed\` itself`;
    assert.deepEqual(moneyEventViolationsIn('src/x/x.service.ts', service, kinds), [
      "src/x/x.service.ts:2: kind: 'hold_released',",
      "src/x/x.service.ts:7: await recordEvent(trx, { tenantId, type: 'payment.reversed', data });",
    ]);
  });

  it('reads the changes told as money from change-events.ts as it is: none is left to recordChange', async () => {
    const { moneyChangeKinds } = await load();
    assert.deepEqual([...moneyChangeKinds(readFileSync(path.resolve(__dirname, '../../../src/events/change-events.ts'), 'utf8'))], []);
  });
});
