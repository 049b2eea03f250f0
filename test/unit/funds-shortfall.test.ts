import assert from 'node:assert/strict';
import { heldShortfall, type FundsStanding } from '../../src/ledger/funds-shortfall';

const account = (change: Partial<FundsStanding>): FundsStanding => ({
  ledgerBalance: 60_000_00n,
  pendingCredits: 0n,
  heldBalance: 10_000_00n,
  holdKinds: ['single_credit'],
  ...change,
});

describe("an insufficient-funds refusal's account of held money", () => {
  it('says nothing when nothing is held: held money is no part of why', () => {
    assert.equal(heldShortfall(account({ heldBalance: 0n, holdKinds: [] }), 'ledger'), undefined);
  });

  it('gives what may be spent under the setting, what is held, and the kinds of hold in words', () => {
    assert.deepEqual(heldShortfall(account({}), 'ledger'), {
      available: '50000.00',
      held: '10000.00',
      reason: "held by the customer's KYC limits",
    });
    assert.equal(heldShortfall(account({ pendingCredits: 20_000_00n, holdKinds: ['balance'] }), 'available')?.available, '30000.00');
    assert.equal(
      heldShortfall(account({ holdKinds: ['amount_mismatch'] }), 'ledger')?.reason,
      "held to return to the payer: a dynamic account's mismatched payment",
    );
    assert.equal(
      heldShortfall(account({ holdKinds: ['amount_mismatch', 'balance'] }), 'ledger')?.reason,
      "held by the customer's KYC limits and to return to the payer: a dynamic account's mismatched payment",
    );
  });

  it('never answers a negative amount to spend (provisional money counted twice, or an account in deficit)', () => {
    assert.equal(heldShortfall(account({ ledgerBalance: -5_00n }), 'ledger')?.available, '0.00');
    assert.equal(heldShortfall(account({ pendingCredits: 60_000_00n }), 'available')?.available, '0.00');
  });
});
