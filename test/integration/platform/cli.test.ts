import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import path from 'node:path';
import { promisify } from 'node:util';
import { call } from '../../helpers/http';
import { fundAccount, provisionAccount } from '../../helpers/fixtures';
import { scratchDatabase } from '../../helpers/scratch-database';
import { createTenant, startStack, type Stack } from '../../helpers/stack';

const run = promisify(execFile);
const CLI = path.resolve(__dirname, '../../../src/main/cli.js');

function cli(...args: string[]): Promise<{ stdout: string; stderr: string }> {
  return run(process.execPath, [CLI, ...args], { env: process.env });
}

async function cliWithInput(input: string, ...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [CLI, ...args], { env: process.env, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdin.end(input);
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, stdout, stderr };
}

describe('CLI', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });
  after(() => stack.close());

  it('tenant:create --json prints exactly one JSON line whose key works against the API', async () => {
    const { stdout } = await cli('tenant:create', '--name', 'CLI Tenant', '--json');
    const lines = stdout.trim().split('\n');
    assert.equal(lines.length, 1);
    const created = JSON.parse(lines[0]!) as { tenantId: string; apiKey: string; cluster: string };
    assert.deepEqual(Object.keys(created).sort(), ['apiKey', 'cluster', 'tenantId']);
    assert.equal(created.cluster, 'main', 'the one cluster');
    const me = await call(stack.apiUrl, 'GET', '/v1/me', { apiKey: created.apiKey });
    assert.equal(me.status, 200);
    assert.deepEqual(me.body, { tenantId: created.tenantId, name: 'CLI Tenant' });
  });

  it('apikey:create adds a key and apikey:revoke disables it by prefix', async () => {
    const tenant = await createTenant(stack, 'Keys');
    const second = JSON.parse((await cli('apikey:create', '--tenant', tenant.tenantId, '--json')).stdout) as { apiKey: string };
    assert.equal((await call(stack.apiUrl, 'GET', '/v1/me', { apiKey: second.apiKey })).status, 200);
    await cli('apikey:revoke', '--key-prefix', second.apiKey.slice(0, 11));
    assert.equal((await call(stack.apiUrl, 'GET', '/v1/me', { apiKey: second.apiKey })).status, 401);
    assert.equal((await call(stack.apiUrl, 'GET', '/v1/me', { apiKey: tenant.apiKey })).status, 200);
  });

  it('user:create reads the password from stdin and makes a dashboard user who can log in', async () => {
    const tenant = await createTenant(stack, 'Users');
    const email = `cli+${Date.now()}@example.com`;
    const created = await cliWithInput('a long enough password\n', 'user:create', '--tenant', tenant.tenantId, '--email', email, '--json');
    assert.equal(created.code, 0, created.stderr);
    const login = await call(stack.apiUrl, 'POST', '/auth/login', { body: { email, password: 'a long enough password' } });
    assert.equal(login.status, 200);
    assert.equal(login.body.tenantId, tenant.tenantId);
  });

  it('user:create refuses --password with a message saying why, and creates nobody', async () => {
    const tenant = await createTenant(stack, 'Refused');
    const email = `cli+${Date.now()}@example.com`;
    const refused = await cliWithInput(
      '',
      'user:create',
      '--tenant',
      tenant.tenantId,
      '--email',
      email,
      '--password',
      'a long enough password',
    );
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /--password is refused/);
    assert.equal(await stack.infra.db('dashboard_users').where({ email }).first(), undefined);
  });

  it('ledger:verify passes on a consistent ledger and exits 1 naming the account when totals disagree with the entries', async () => {
    const tenant = await createTenant(stack);
    const account = await provisionAccount(stack, tenant.apiKey);
    await fundAccount(stack, account.ID, 10_000n);
    const clean = JSON.parse((await cli('ledger:verify', '--json')).stdout) as { problems: unknown[] };
    assert.deepEqual(clean.problems, []);
    const db = stack.infra.db;
    await db('virtual_accounts').where({ id: account.ID }).increment({ total_credits: 1, ledger_balance: 1 });
    try {
      await assert.rejects(cli('ledger:verify'), (error: { code: number; stdout: string }) => {
        assert.equal(error.code, 1);
        assert.match(error.stdout, new RegExp(`\\[account_totals\\] ${account.AccountRef}`));
        return true;
      });
    } finally {
      await db('virtual_accounts').where({ id: account.ID }).decrement({ total_credits: 1, ledger_balance: 1 });
    }
  });

  it('ledger:verify without --cluster checks every cluster, says what it found on each and exits 1 when any has a mismatch', async () => {
    const tenant = await createTenant(stack);
    const account = await provisionAccount(stack, tenant.apiKey);
    await fundAccount(stack, account.ID, 10_000n);
    // A clean cluster listed first (and holding the directory), then the run's database with a mismatch planted.
    const clean = await scratchDatabase('verify_clean', { control: true });
    const env = {
      ...process.env,
      DATABASE_CLUSTERS: `clean=${clean.url},busy=${process.env.DATABASE_URL!}`,
      CONTROL_DATABASE_URL: clean.url,
    };
    const db = stack.infra.db;
    await db('virtual_accounts').where({ id: account.ID }).increment({ total_credits: 1, ledger_balance: 1 });
    try {
      const human = await run(process.execPath, [CLI, 'ledger:verify'], { env }).then(
        () => assert.fail('ledger:verify exited 0 with a mismatch on the second cluster'),
        (error: { code: number; stdout: string }) => error,
      );
      assert.equal(human.code, 1);
      assert.match(human.stdout, /^cluster clean:\nledger verified: 0 accounts/m);
      assert.match(human.stdout, new RegExp(`^cluster busy:\\n\\d+ problem\\(s\\)[^]*\\[account_totals\\] ${account.AccountRef}`, 'm'));
      // One wallet, compared by the first cluster's platform runs: the other cluster's answer says where to look.
      assert.match(human.stdout, /^ {2}provider wallet: no platform reconciliation has compared it yet$/m);
      assert.match(human.stdout, /^cluster busy:[^]*provider wallet.*\(cluster clean compares it, with the books of every cluster\)/m);
      const json = await run(process.execPath, [CLI, 'ledger:verify', '--json'], { env }).then(
        () => assert.fail('ledger:verify --json exited 0'),
        (error: { code: number; stdout: string }) => error,
      );
      const lines = json.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { cluster: string; problems: unknown[]; walletComparedBy: string });
      assert.deepEqual(
        lines.map((line) => [line.cluster, line.problems.length > 0, line.walletComparedBy]),
        [
          ['clean', false, 'clean'],
          ['busy', true, 'clean'],
        ],
      );
      const one = JSON.parse(
        (await run(process.execPath, [CLI, 'ledger:verify', '--json', '--cluster', 'clean'], { env })).stdout,
      ) as object;
      assert.equal('cluster' in one, false, 'one cluster named: its answer as it always was');
    } finally {
      await db('virtual_accounts').where({ id: account.ID }).decrement({ total_credits: 1, ledger_balance: 1 });
      await clean.drop();
    }
  });

  it('ledger:verify on a database not yet migrated exits 1 asking for db:migrate, not with a SQL error', async () => {
    const empty = await scratchDatabase('unmigrated', { migrated: false });
    try {
      const result = await run(process.execPath, [CLI, 'ledger:verify'], { env: { ...process.env, DATABASE_URL: empty.url } }).then(
        () => assert.fail('ledger:verify succeeded on an empty database'),
        (error: { code: number; stderr: string }) => error,
      );
      assert.equal(result.code, 1);
      assert.match(result.stderr, /lacks \d+ migration\(s\).*db:migrate/);
      assert.doesNotMatch(result.stderr, /relation .* does not exist/);
    } finally {
      await empty.drop();
    }
  });

  it('exits 2 with the usage for a missing option or an unknown command', async () => {
    await assert.rejects(
      cli('tenant:create'),
      (error: { code: number; stderr: string }) => error.code === 2 && /missing --name/.test(error.stderr),
    );
    await assert.rejects(
      cli('nope'),
      (error: { code: number; stderr: string }) => error.code === 2 && /unknown command/.test(error.stderr),
    );
    await assert.rejects(
      cli('reconcile', '--from', 'yesterday'),
      (error: { code: number; stderr: string }) =>
        error.code === 2 && /--from must be an ISO 8601 timestamp\nusage: reconcile/.test(error.stderr),
    );
    await assert.rejects(
      cli('reconcile:exceptions', '--status', 'closed'),
      (error: { code: number; stderr: string }) => error.code === 2 && /--status must be open, repaired or resolved/.test(error.stderr),
    );
    await assert.rejects(
      cli('reconcile:exceptions', '--kind', 'odd'),
      (error: { code: number; stderr: string }) =>
        error.code === 2 && /--kind must be one of missing_credit, .*unknown_transfer/.test(error.stderr),
    );
  });

  it('reconcile:exceptions --kind lists the findings of that kind only', async () => {
    // A tenant of its own, so that no reconciliation run of another test meets these rows.
    const tenant = await createTenant(stack, 'Findings');
    const db = stack.infra.db;
    const runId = randomUUID();
    await db('reconciliation_runs').insert({
      id: runId,
      tenant_id: tenant.tenantId,
      trigger: 'operator',
      window_from: new Date(Date.now() - 3_600_000),
      window_to: new Date(),
      status: 'succeeded',
    });
    const finding = (kind: string) => ({
      id: randomUUID(),
      tenant_id: tenant.tenantId,
      kind,
      severity: 'warning',
      status: 'open',
      subject: `${kind}-${runId}`,
      first_run_id: runId,
      last_run_id: runId,
    });
    const stuck = finding('settlement_stuck');
    await db('reconciliation_exceptions').insert([stuck, finding('payment_mismatch')]);
    const listed = JSON.parse(
      (await cli('reconcile:exceptions', '--tenant', tenant.tenantId, '--kind', 'settlement_stuck', '--json')).stdout,
    ) as { exceptions: Array<{ ID: string; Kind: string }> };
    assert.deepEqual(
      listed.exceptions.map((item) => [item.ID, item.Kind]),
      [[stuck.id, 'settlement_stuck']],
    );
  });

  it("reconcile:resolve --tenant decides a tenant's finding the platform operator alone decides; reconcile:compensate refuses what is no taken-back credit", async () => {
    const tenant = await createTenant(stack, 'Platform Decides');
    const db = stack.infra.db;
    const finding = (kind: string) => ({
      id: randomUUID(),
      tenant_id: tenant.tenantId,
      kind,
      severity: 'alert',
      status: 'open',
      subject: `${kind}-${randomUUID()}`,
    });
    const paidTwice = finding('settlement_paid_twice');
    await db('reconciliation_exceptions').insert(paidTwice);
    const everyTenant = JSON.parse(
      (await cli('reconcile:exceptions', '--all-tenants', '--kind', 'settlement_paid_twice', '--status', 'open', '--json')).stdout,
    ) as {
      exceptions: Array<{ ID: string }>;
    };
    assert.ok(
      everyTenant.exceptions.some((listed) => listed.ID === paidTwice.id),
      'the platform operator finds it across tenants',
    );
    await assert.rejects(
      cli('reconcile:exceptions', '--all-tenants', '--tenant', tenant.tenantId),
      (error: { code: number; stderr: string }) => error.code === 2 && /cannot go together/.test(error.stderr),
    );
    await assert.rejects(
      cli('reconcile:compensate', '--exception', paidTwice.id, '--tenant', tenant.tenantId, '--note', 'no'),
      (error: { code: number; stderr: string }) =>
        error.code === 1 && /only a confirmed credit the provider failed or refunded can be compensated/.test(error.stderr),
    );
    const resolved = JSON.parse(
      (
        await cli(
          'reconcile:resolve',
          '--exception',
          paidTwice.id,
          '--tenant',
          tenant.tenantId,
          '--note',
          'recovered from the beneficiary bank',
          '--json',
        )
      ).stdout,
    ) as {
      exception: { Status: string; ResolvedVia: string; PlatformDecides: boolean };
    };
    assert.deepEqual(
      [resolved.exception.Status, resolved.exception.ResolvedVia, resolved.exception.PlatformDecides],
      ['resolved', 'cli', true],
    );
  });

  it("reconcile links the platform operator (the CLI's user) to the run's workflow in the Temporal UI", async () => {
    const tenant = await createTenant(stack);
    const { stdout } = await cli('reconcile', '--tenant', tenant.tenantId, '--no-wait', '--json');
    const started = JSON.parse(stdout) as { run: { ID: string }; temporalUiUrl: string };
    const query = encodeURIComponent(`WorkflowId="reconciliation:${started.run.ID}"`);
    assert.equal(
      started.temporalUiUrl,
      `${stack.config.TEMPORAL_UI_URL}/namespaces/${stack.config.TEMPORAL_NAMESPACE}/workflows?query=${query}`,
    );
  });

  it('settlement:retry exits 1 naming a settlement it cannot start', async () => {
    await assert.rejects(
      cli('settlement:retry', '--ref', `mtx_${randomUUID()}`),
      (error: { code: number; stdout: string }) => error.code === 1 && /not found/.test(error.stdout),
    );
  });
});
