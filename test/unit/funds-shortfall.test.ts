import assert from 'node:assert/strict';
import { fundsShortfall, type FundsStanding } from '../../src/ledger/funds-shortfall';
import { RESERVATION_KIND_NAMES, RESERVATION_KINDS } from '../../src/ledger/reservation-kinds';

const account = (change: Partial<FundsStanding>): FundsStanding => ({
  ledgerBalance: 60_000_00n,
  pendingCredits: 0n,
  heldBalance: 10_000_00n,
  spendable: 50_000_00n,
  holdKinds: ['kyc_limit'],
  ...change,
});

describe("an insufficient-funds refusal's account of held and unconfirmed money", () => {
  it('says nothing when nothing is held and no unconfirmed money counts: neither is part of why', () => {
    assert.equal(fundsShortfall(account({ heldBalance: 0n, holdKinds: [] }), 'ledger'), undefined);
    assert.equal(fundsShortfall(account({ heldBalance: 0n, holdKinds: [], pendingCredits: 5_00n }), 'ledger'), undefined);
  });

  it("gives what may be spent (the ledger's spendable amount), what is held, and the kinds of hold in words", () => {
    assert.deepEqual(fundsShortfall(account({}), 'ledger'), {
      available: '50000.00',
      held: '10000.00',
      reason: "held by the customer's KYC limits",
    });
    assert.equal(
      fundsShortfall(account({ holdKinds: ['payment_mismatch'] }), 'ledger')?.reason,
      "held to return to the payer: a dynamic account's mismatched payment",
    );
    assert.equal(
      fundsShortfall(account({ holdKinds: ['payment_mismatch', 'kyc_limit'] }), 'ledger')?.reason,
      "held by the customer's KYC limits and to return to the payer: a dynamic account's mismatched payment",
    );
  });

  it("words each kind of reservation from its declaration, and calls only the KYC limits' reservations a KYC hold", () => {
    for (const kind of RESERVATION_KIND_NAMES) {
      const reason = fundsShortfall(account({ holdKinds: [kind] }), 'ledger')?.reason ?? '';
      assert.equal(reason, `held ${RESERVATION_KINDS[kind].heldFor}`, kind);
      assert.equal(reason.includes('KYC'), kind === 'kyc_limit', `${kind}: ${reason}`);
    }
  });

  it('names money the provider has not confirmed when only confirmed money may be spent (a transfer)', () => {
    assert.deepEqual(
      fundsShortfall(account({ pendingCredits: 20_000_00n, spendable: 30_000_00n, holdKinds: ['kyc_limit'] }), 'available'),
      {
        available: '30000.00',
        held: '10000.00',
        pending: '20000.00',
        reason: "held by the customer's KYC limits; not yet confirmed by the provider",
      },
    );
    assert.deepEqual(fundsShortfall(account({ heldBalance: 0n, holdKinds: [], pendingCredits: 60_000_00n, spendable: 0n }), 'available'), {
      available: '0.00',
      held: '0.00',
      pending: '60000.00',
      reason: 'not yet confirmed by the provider',
    });
  });

  it('never answers a negative amount to spend (provisional money counted twice, or an account in deficit)', () => {
    assert.equal(fundsShortfall(account({ ledgerBalance: -5_00n, spendable: -10_005_00n }), 'ledger')?.available, '0.00');
    assert.equal(fundsShortfall(account({ pendingCredits: 60_000_00n, spendable: -10_000_00n }), 'available')?.available, '0.00');
  });
});
