import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ConfigError, loadConfig } from '../../src/config';
import { looserThanDefaults, withinDefaults } from '../../src/policies/kyc-limits/customer-limits';
import { releasableUnderLimits } from '../../src/policies/kyc-limits/credit-limits';
import { DEVELOPMENT_SETTINGS } from '../helpers/config';

describe('KYC tier limits', () => {
  it("defaults to the central bank's tiers, in kobo, and the docs' table matches them", () => {
    const config = loadConfig(DEVELOPMENT_SETTINGS);
    assert.deepEqual(config.KYC_TIER1_LIMITS, { singleCredit: 5_000_000n, balance: 30_000_000n, dailyDebits: 5_000_000n });
    assert.deepEqual(config.KYC_TIER2_LIMITS, { singleCredit: 10_000_000n, balance: 50_000_000n, dailyDebits: 20_000_000n });
    assert.deepEqual(config.KYC_TIER3_LIMITS, { singleCredit: null, balance: null, dailyDebits: 500_000_000n });
    const docs = readFileSync(path.resolve(__dirname, '../../../docs/kyc-limits.md'), 'utf8');
    const naira = (kobo: bigint | null) => (kobo === null ? 'no limit' : `₦${(kobo / 100n).toLocaleString('en-US')}`);
    for (const [tier, limits] of [
      [1, config.KYC_TIER1_LIMITS],
      [2, config.KYC_TIER2_LIMITS],
      [3, config.KYC_TIER3_LIMITS],
    ] as const) {
      assert.ok(
        docs.includes(`| ${tier} | ${naira(limits.singleCredit)} | ${naira(limits.balance)} | ${naira(limits.dailyDebits)} |`),
        `tier ${tier} row`,
      );
    }
  });

  it('reads a tier as three naira limits, "none" for no limit, and refuses anything else naming the variable', () => {
    assert.deepEqual(loadConfig({ ...DEVELOPMENT_SETTINGS, KYC_TIER1_LIMITS: '30000, none ,1000.50' }).KYC_TIER1_LIMITS, {
      singleCredit: 3_000_000n,
      balance: null,
      dailyDebits: 100_050n,
    });
    for (const bad of ['-1,1,1', '1,1', '1,1,1,1', 'x,1,1', '1.001,1,1']) {
      assert.throws(
        () => loadConfig({ ...DEVELOPMENT_SETTINGS, KYC_TIER2_LIMITS: bad }),
        (error: unknown) => error instanceof ConfigError && error.problems.some((problem) => problem.startsWith('KYC_TIER2_LIMITS:')),
        bad,
      );
    }
  });

  it("releases what new limits no longer justify, oldest credit first across the customer's accounts, up to the balance limit", () => {
    const holds = [
      { entryId: 'a', accountId: 'first', open: 1_000_000n, credit: 6_000_000n },
      { entryId: 'b', accountId: 'second', open: 3_000_000n, credit: 9_000_000n },
      { entryId: 'c', accountId: 'first', open: 2_000_000n, credit: 2_000_000n },
    ];
    // Tier 2: 100,000 a credit, 500,000 balance; 440,000 unheld: room for 60,000.
    assert.deepEqual(releasableUnderLimits({ unheldBalance: 44_000_000n, singleCredit: 10_000_000n, balanceLimit: 50_000_000n, holds }), [
      { entryId: 'a', accountId: 'first', amount: 1_000_000n },
      { entryId: 'b', accountId: 'second', amount: 3_000_000n },
      { entryId: 'c', accountId: 'first', amount: 2_000_000n },
    ]);
    assert.deepEqual(releasableUnderLimits({ unheldBalance: 49_500_000n, singleCredit: 10_000_000n, balanceLimit: 50_000_000n, holds }), [
      { entryId: 'a', accountId: 'first', amount: 500_000n },
    ]);
    assert.deepEqual(releasableUnderLimits({ unheldBalance: 47_000_000n, singleCredit: 10_000_000n, balanceLimit: 50_000_000n, holds }), [
      { entryId: 'a', accountId: 'first', amount: 1_000_000n },
      { entryId: 'b', accountId: 'second', amount: 2_000_000n },
    ]);
    // A single-credit limit still below a credit keeps the part over it held.
    assert.deepEqual(releasableUnderLimits({ unheldBalance: 0n, singleCredit: 7_000_000n, balanceLimit: null, holds }), [
      { entryId: 'a', accountId: 'first', amount: 1_000_000n },
      { entryId: 'b', accountId: 'second', amount: 1_000_000n },
      { entryId: 'c', accountId: 'first', amount: 2_000_000n },
    ]);
  });

  it("names each limit looser than the platform's for the tier, and brings limits within the platform's", () => {
    const tier1 = { singleCredit: 5_000_000n, balance: 30_000_000n, dailyDebits: 5_000_000n };
    assert.deepEqual(looserThanDefaults({ singleCredit: 5_000_000n, balance: 10_000_000n, dailyDebits: 0n }, tier1), []);
    assert.deepEqual(looserThanDefaults({ singleCredit: 5_000_001n, balance: null, dailyDebits: 5_000_000n }, tier1), [
      "singleCredit 50000.01 (platform's 50000.00)",
      "balance no limit (platform's 300000.00)",
    ]);
    // No limit in the platform's tier: nothing a tenant sets is looser.
    assert.deepEqual(
      looserThanDefaults({ singleCredit: null, balance: 1n, dailyDebits: null }, { singleCredit: null, balance: null, dailyDebits: null }),
      [],
    );
    assert.deepEqual(withinDefaults({ singleCredit: 1_000_000n, balance: null, dailyDebits: 9_000_000n }, tier1), {
      singleCredit: 1_000_000n,
      balance: 30_000_000n,
      dailyDebits: 5_000_000n,
    });
  });
});
