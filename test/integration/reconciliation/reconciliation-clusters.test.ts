import assert from 'node:assert/strict';
import { createKnex, type Db } from '../../../src/db';
import { uuidv7 } from '../../../src/ids';
import { createLedgerBooksRepo } from '../../../src/ledger/ledger-books.repo';
import { formatKobo } from '../../../src/money';
import { createLogger } from '../../../src/logger';
import type { ExceptionRecord } from '../../../src/reconciliation/reconciliation-exceptions.repo';
import { createTenantFence } from '../../../src/tenant-moves/tenant-fence';
import { fundAccount, provisionAccount, type ProvisionedAccount } from '../../helpers/fixtures';
import { call, eventually } from '../../helpers/http';
import { platformRunToEnd } from '../../helpers/platform-run';
import { scratchDatabase } from '../../helpers/scratch-database';
import { createTenant, startStack, type Stack, type TestTenant } from '../../helpers/stack';

const UNKNOWN = ['unknown_account', 'unknown_transfer'];

/** A payment the provider received for `accountRef` and told nobody of (the run finds it in the wallet's listing). */
async function suppressedPayment(stack: Stack, accountRef: string, amount: number): Promise<string> {
  const paid = await call(stack.sandboxUrl, 'POST', '/sandbox/payments', { body: { accountRef, amount, suppressWebhook: true } });
  assert.equal(paid.status, 200, paid.text);
  return paid.body.transactionId as string;
}

/** A payout of `account`, paid by the stack's worker at the provider: its settlement reference. */
async function paidPayout(stack: Stack, tenant: TestTenant, account: ProvisionedAccount): Promise<string> {
  const settle = await call(stack.apiUrl, 'POST', `/v1/accounts/${account.AccountRef}/settle`, {
    apiKey: tenant.apiKey,
    body: { amount: '100.00', bankCode: '058', accountNumber: '0123456789' },
  });
  assert.equal(settle.status, 202, settle.text);
  const ref = settle.body.merchantTxRef as string;
  await eventually(
    async () => (await stack.infra.db('settlements').where({ merchant_tx_ref: ref, status: 'success' }).first('id')) ?? null,
    {
      what: `the payout ${ref} paid`,
    },
  );
  return ref;
}

/** A platform run of the stack's cluster over [from, now], to its end: the run and the platform's findings it met. */
async function platformRun(
  stack: Stack,
  from: Date,
): Promise<{ id: string; repaired: number; findings: ExceptionRecord[]; wallet: { heldPerBooks: string } | null }> {
  const done = await platformRunToEnd(stack, from);
  const linked = new Set(
    (await stack.infra.db('reconciliation_run_exceptions').where({ run_id: done.id }).select('exception_id')).map(
      (row: { exception_id: string }) => row.exception_id,
    ),
  );
  const all = await stack.services.reconciliation.listExceptions(null, {}, null, 500);
  return { id: done.id, repaired: done.repaired, findings: all.filter((finding) => linked.has(finding.id)), wallet: done.wallet };
}

// Two clusters behind one provider wallet: each platform run lists every row of the wallet, and takes only the rows
// its cluster places; the first cluster's also the rows no cluster places, once for the platform.
describe('platform reconciliation on two clusters sharing one provider wallet', function () {
  this.timeout(180_000);
  let firstDb: { url: string; drop(): Promise<void> };
  let secondDb: { url: string; drop(): Promise<void> };
  let firstPool: Db;
  let secondPool: Db;
  let first: Stack;
  let second: Stack;
  let onFirst: TestTenant;
  let onSecond: TestTenant;

  before(async () => {
    [firstDb, secondDb] = [await scratchDatabase('recon_first'), await scratchDatabase('recon_second')];
    // The other cell's pool each worker holds, as a worker process holds one per cluster.
    const logger = createLogger('silent', 'test');
    firstPool = createKnex({ DATABASE_URL: firstDb.url, DATABASE_POOL_MAX: 2 }, logger);
    secondPool = createKnex({ DATABASE_URL: secondDb.url, DATABASE_POOL_MAX: 2 }, logger);
    const settings = { WORKFLOW_START_RATE: '1000', RECONCILIATION_GRACE: '0ms', SETTLEMENT_POLL_INTERVAL: '300ms' };
    first = await startStack(
      { ...settings, DATABASE_URL: firstDb.url },
      { worker: true, reconciliationCells: { reportsUnowned: true, others: [secondPool] } },
    );
    // One provider (the first stack's sandbox) behind both clusters, as in production.
    second = await startStack(
      { ...settings, DATABASE_URL: secondDb.url, PROVIDER_BASE_URL: first.sandboxUrl },
      { worker: true, reconciliationCells: { reportsUnowned: false, others: [firstPool] } },
    );
    [onFirst, onSecond] = [await createTenant(first, 'On The First'), await createTenant(second, 'On The Second')];
  });
  after(async () => {
    await second?.close();
    await first?.close();
    await Promise.all([firstPool?.destroy(), secondPool?.destroy()]);
    await Promise.all([secondDb?.drop(), firstDb?.drop()]);
  });

  it("raises no finding for another cluster's credits and payouts, and a credit to an account nobody has once, on the first cluster", async () => {
    const [firstAccount, secondAccount] = [await provisionAccount(first, onFirst.apiKey), await provisionAccount(second, onSecond.apiKey)];
    await fundAccount(first, firstAccount.ID, 500_000n);
    await fundAccount(second, secondAccount.ID, 500_000n);
    const from = new Date();
    const firstCredit = await suppressedPayment(first, firstAccount.AccountRef, 2_000);
    const secondCredit = await suppressedPayment(first, secondAccount.AccountRef, 3_000);
    const firstPayout = await paidPayout(first, onFirst, firstAccount);
    const secondPayout = await paidPayout(second, onSecond, secondAccount);
    // A payment to an account the provider holds for the wallet but no cluster has.
    const issued = await call(first.sandboxUrl, 'POST', '/v1/auth/token/issue', {
      body: { grant_type: 'client_credentials', client_id: 'c', client_secret: 's' },
    });
    const stranger = await call(first.sandboxUrl, 'POST', '/v1/accounts/virtual', {
      headers: { authorization: `Bearer ${issued.body.data.access_token}`, accountId: 'acct' },
      body: { accountRef: `va_nobody_${Date.now()}`, accountName: 'Nobody Here', currency: 'NGN' },
    });
    assert.equal(stranger.status, 200, stranger.text);
    const unowned = await suppressedPayment(first, stranger.body.data.accountRef, 1_500);

    const held = async (stack: Stack) => createLedgerBooksRepo(stack.infra.db).heldAtProvider();
    const onFirstRun = await platformRun(first, from);
    const heldByBoth = (await held(first)) + (await held(second));
    const onSecondRun = await platformRun(second, from);
    const unknownOf = (findings: ExceptionRecord[]) =>
      findings.filter((finding) => UNKNOWN.includes(finding.kind)).map((finding) => [finding.kind, finding.subject]);
    assert.deepEqual(unknownOf(onFirstRun.findings), [['unknown_account', unowned]], "the first cluster: only the credit nobody's");
    assert.deepEqual(unknownOf(onSecondRun.findings), [], 'the second cluster: none');
    // Each cluster repaired its own missed credit, once.
    assert.equal(onFirstRun.repaired, 1);
    assert.equal(onSecondRun.repaired, 1);
    const credited = async (stack: Stack, txn: string) =>
      Number((await stack.infra.db('ledger_entries').where({ kind: 'payment', provider_txn_ref: txn }).count({ n: '*' }))[0]!.n);
    assert.deepEqual(
      [await credited(first, firstCredit), await credited(second, secondCredit), await credited(first, secondCredit)],
      [1, 1, 0],
    );
    // The one wallet is compared once, by the first cluster, against the books of both.
    assert.equal(onFirstRun.wallet?.heldPerBooks, formatKobo(heldByBoth));
    assert.equal(onSecondRun.wallet, null);
    assert.deepEqual(
      onSecondRun.findings.filter((finding) => finding.kind === 'wallet_difference'),
      [],
    );
    // Each payout was matched where it was made, and nowhere reported.
    for (const [stack, ref] of [
      [first, firstPayout],
      [second, secondPayout],
    ] as const)
      assert.equal((await stack.infra.db('settlements').where({ merchant_tx_ref: ref }).first('status')).status, 'success');
  });

  it("leaves a moved tenant's rows on the source to the cluster it moved to: no finding, no repair there", async () => {
    const moved = await createTenant(first, 'Moved Away');
    const account = await provisionAccount(first, moved.apiKey);
    const from = new Date();
    // A payment the ledger never heard of (a repair), and one the ledger holds for another amount (a finding).
    const missed = await suppressedPayment(first, account.AccountRef, 4_000);
    const differs = await suppressedPayment(first, account.AccountRef, 5_000);
    await first.infra.db.transaction((trx) =>
      first.services.postingEngine.post(trx, account.ID, [
        {
          direction: 'credit',
          kind: 'payment',
          amount: 1_234n,
          status: 'confirmed',
          narration: 'a payment recorded for another amount',
          providerTxnRef: differs,
          transactionGroupId: uuidv7(),
        },
      ]),
    );
    const heldBeforeTheFence = await createLedgerBooksRepo(first.infra.db).heldAtProvider();
    // The move's fence on the source: the tenant's accounts, settlements and tenants row marked moved out.
    await createTenantFence(first.infra.db).raise(moved.tenantId);

    // The moved tenant's money is held by the books of the cluster it moved to, not counted again here.
    assert.equal(await createLedgerBooksRepo(first.infra.db).heldAtProvider(), heldBeforeTheFence - 1_234n);
    const { id, findings, repaired } = await platformRun(first, from);
    assert.deepEqual(
      findings.filter((finding) => [missed, differs].includes(finding.subject) || finding.tenantId === moved.tenantId).map((f) => f.kind),
      [],
    );
    assert.equal(repaired, 0);
    assert.equal((await first.infra.db('ledger_entries').where({ provider_txn_ref: missed }).first('id')) ?? null, null, 'no repair');
    // The run keeps a share for the tenants this cluster holds, none for the one that moved away.
    const sharedOut = (await first.infra.db('reconciliation_runs').where({ parent_run_id: id }).select('tenant_id')).map(
      (row: { tenant_id: string }) => row.tenant_id,
    );
    assert.ok(sharedOut.includes(onFirst.tenantId), 'a child run for the tenant still on the first cluster');
    assert.ok(!sharedOut.includes(moved.tenantId), 'no child run for the tenant that moved away');
    // The second cluster, which does not hold the tenant either, leaves the rows alone too.
    const onSecondRun = await platformRun(second, from);
    assert.deepEqual(
      onSecondRun.findings.filter((finding) => [missed, differs].includes(finding.subject)),
      [],
    );
  });
});
