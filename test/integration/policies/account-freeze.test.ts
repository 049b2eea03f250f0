import assert from 'node:assert/strict';
import {
  accountHoldsCredits,
  accountHoldsCreditsSql,
  accountMayPayOut,
  accountMayPayOutSql,
} from '../../../src/policies/account-freeze/account-freeze';
import { sqlCases } from '../../helpers/sql-cases';

describe("policies: an account's freeze", () => {
  const sql = sqlCases();
  before(() => sql.open());
  after(() => sql.close());

  it('refuses debits of an account frozen for debits or both, holds credits of one frozen for credits or both, in SQL and in TypeScript alike', async () => {
    const cases = [{ frozen_for: null }, { frozen_for: 'debits' }, { frozen_for: 'credits' }, { frozen_for: 'both' }];
    const rows = await sql.rows<{ pays: boolean; holds: boolean }>(
      `SELECT ${accountMayPayOutSql('v.frozen_for')} AS pays, ${accountHoldsCreditsSql('v.frozen_for')} AS holds
         FROM jsonb_to_recordset(CAST(:cases AS jsonb)) AS v(frozen_for text, n int) ORDER BY v.n`,
      cases,
    );
    const decided = cases.map((item) => ({ pays: accountMayPayOut(item.frozen_for), holds: accountHoldsCredits(item.frozen_for) }));
    assert.deepEqual(rows, decided);
    assert.deepEqual(decided, [
      { pays: true, holds: false },
      { pays: false, holds: false },
      { pays: true, holds: true },
      { pays: false, holds: true },
    ]);
  });
});
