import assert from 'node:assert/strict';
import { splitMoves, type SplitPart } from '../../src/policies/split-rule/split-parts';

const share = (toAccountId: string, percent: number): SplitPart => ({ toAccountId, basisPoints: Math.round(percent * 100), amount: null });
const fixed = (toAccountId: string, kobo: bigint): SplitPart => ({ toAccountId, basisPoints: null, amount: kobo });

describe('split moves of a confirmed payment', () => {
  it('rounds each share down to the kobo and leaves the remainder with the account', () => {
    // 100.01 net: a third each is 33.3366..., so 33.33 moves three times and 0.02 stays.
    const moves = splitMoves([share('a', 33.33), share('b', 33.33), share('c', 33.33)], 'split', { net: 100_01n, fee: 0n, held: 0n });
    assert.deepEqual(
      moves.map((move) => [move.position, move.toAccountId, move.amount]),
      [
        [1, 'a', 33_33n],
        [2, 'b', 33_33n],
        [3, 'c', 33_33n],
      ],
    );
    assert.equal(100_01n - moves.reduce((sum, move) => sum + move.amount, 0n), 2n);
  });

  it('takes shares of the gross when the account bears the fee, of the net when the split shares it', () => {
    const payment = { net: 5000_00n, fee: 25_00n, held: 0n };
    assert.deepEqual(
      splitMoves([share('a', 50)], 'account', payment).map((move) => move.amount),
      [2512_50n],
    );
    assert.deepEqual(
      splitMoves([share('a', 50)], 'split', payment).map((move) => move.amount),
      [2500_00n],
    );
  });

  it('moves fixed amounts as they are, never more than is left of the net credit, and skips a part left with nothing', () => {
    const moves = splitMoves([fixed('a', 60_00n), share('b', 100), fixed('c', 1n)], 'account', { net: 90_00n, fee: 10_00n, held: 0n });
    // 60.00 fixed; 100% of the 100.00 gross is cut to the 30.00 left; nothing left for the last part.
    assert.deepEqual(
      moves.map((move) => [move.position, move.amount]),
      [
        [1, 60_00n],
        [2, 30_00n],
      ],
    );
  });

  it("never moves the payment's held money: parts are cut to its unheld part", () => {
    // 60,000.00 credited, 10,000.00 of it held by the customer's KYC limits: 50% of the net is 30,000.00; 40% (24,000.00) is cut to the 20,000.00 left.
    const moves = splitMoves([share('a', 50), share('b', 40)], 'split', { net: 60_000_00n, fee: 0n, held: 10_000_00n });
    assert.deepEqual(
      moves.map((move) => move.amount),
      [30_000_00n, 20_000_00n],
    );
  });

  it('moves nothing for a share too small to be a kobo', () => {
    assert.deepEqual(splitMoves([share('a', 0.01)], 'split', { net: 99n, fee: 0n, held: 0n }), []);
  });
});
