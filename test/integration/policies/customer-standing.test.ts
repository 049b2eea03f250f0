import assert from 'node:assert/strict';
import { customerMayMoveMoney, customerMayMoveMoneySql } from '../../../src/policies/customer-standing/customer-standing';
import { sqlCases } from '../../helpers/sql-cases';

describe("policies: a customer's standing", () => {
  const sql = sqlCases();
  before(() => sql.open());
  after(() => sql.close());

  it("moves an active customer's money only, in SQL and in TypeScript alike", async () => {
    const cases = [{ status: 'active' }, { status: 'suspended' }];
    const rows = await sql.rows<{ moves: boolean }>(
      `SELECT ${customerMayMoveMoneySql('v.status')} AS moves FROM jsonb_to_recordset(CAST(:cases AS jsonb)) AS v(status text, n int) ORDER BY v.n`,
      cases,
    );
    assert.deepEqual(
      rows.map((row) => row.moves),
      cases.map((item) => customerMayMoveMoney(item.status)),
    );
    assert.deepEqual(
      cases.map((item) => customerMayMoveMoney(item.status)),
      [true, false],
    );
  });
});
