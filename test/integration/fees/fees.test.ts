import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { provisionAccount, statement } from '../../helpers/fixtures';
import { call } from '../../helpers/http';
import { createTenant, startStack, type Stack, type TestTenant } from '../../helpers/stack';

const run = promisify(execFile);
const CLI = path.resolve(__dirname, '../../../src/main/cli.js');
const SEEDED = '0-4999.99:10,5000-50000:25,50000.01-:50';

function cli(...args: string[]): Promise<{ stdout: string; stderr: string }> {
  return run(process.execPath, [CLI, ...args], { env: process.env });
}

describe('fee quotes', () => {
  let stack: Stack;
  let tenant: TestTenant;
  before(async () => {
    stack = await startStack();
    tenant = await createTenant(stack);
  });
  after(async () => {
    await cli('fees:set', '--tiers', SEEDED);
    await stack.close();
  });

  const quote = (amount: string) =>
    call(stack.apiUrl, 'GET', `/v1/fees/calculate?amount=${encodeURIComponent(amount)}`, { apiKey: tenant.apiKey });

  it('quotes the seeded tiers at the boundaries: the smallest send that lands the amount exactly', async () => {
    const expected: Array<[string, string, string, string]> = [
      ['4975.00', '4975.00', '10.00', '4985.00'],
      ['4989.99', '4989.99', '10.00', '4999.99'],
      ['4990.00', '4990.00', '25.00', '5015.00'],
      ['5000', '5000.00', '25.00', '5025.00'],
      ['49975.00', '49975.00', '25.00', '50000.00'],
      ['49976.00', '49976.00', '50.00', '50026.00'],
      ['0.01', '0.01', '10.00', '10.01'],
      ['1500.5', '1500.50', '10.00', '1510.50'],
    ];
    for (const [amount, receive, fee, send] of expected) {
      const response = await quote(amount);
      assert.equal(response.status, 200, amount);
      assert.deepEqual(response.body, { receive_amount: receive, provider_fee: fee, send_amount: send }, amount);
    }
  });

  it('lands exactly receive_amount when the payer sends send_amount through the provider', async () => {
    const account = await provisionAccount(stack, tenant.apiKey);
    const sent: string[] = [];
    for (const receive of ['4975.00', '4990.00', '49975.00', '49976.00']) {
      const { send_amount } = (await quote(receive)).body as { send_amount: string };
      sent.push(
        (await call(stack.sandboxUrl, 'POST', '/sandbox/payments', { body: { accountRef: account.AccountRef, amount: send_amount } })).body
          .transactionId,
      );
    }
    const page = await statement(stack, tenant.apiKey, account.AccountRef);
    assert.deepEqual(
      sent.map(
        (transactionId) =>
          page.body.lines.find((line: { entry: { ProviderTxnRef: string } }) => line.entry.ProviderTxnRef === transactionId).entry.Amount,
      ),
      ['4975.00', '4990.00', '49975.00', '49976.00'],
    );
  });

  it('answers 400 "invalid amount" for anything but a positive amount with at most two decimals, up to the ceiling', async () => {
    for (const amount of ['', '0', '0.00', '-5', 'abc', '1.234', '1e3', ' 5', '1,000', '100000000.01']) {
      const response = await quote(amount);
      assert.equal(response.status, 400, amount);
      assert.deepEqual(
        { error: response.body.error, code: response.body.code },
        { error: 'invalid amount', code: 'validation_error' },
        amount,
      );
    }
    for (const query of ['', '?amount=1&amount=2']) {
      const response = await call(stack.apiUrl, 'GET', `/v1/fees/calculate${query}`, { apiKey: tenant.apiKey });
      assert.equal(response.status, 400, query);
      assert.equal(response.body.error, 'invalid amount');
    }
    assert.equal((await call(stack.apiUrl, 'GET', '/v1/fees/calculate?amount=100')).status, 401);
  });

  it('applies a schedule changed through the CLI to the very next quote, without restarting the API', async () => {
    assert.equal((await cli('fees:show')).stdout.trim(), '0.00-4999.99:10.00,5000.00-50000.00:25.00,50000.01-:50.00');
    assert.equal((await quote('1000')).body.send_amount, '1010.00');
    const set = await cli('fees:set', '--tiers', '0-999.99:5,1000-:30', '--json');
    assert.deepEqual(JSON.parse(set.stdout), {
      tiers: [
        { minSend: '0.00', maxSend: '999.99', fee: '5.00' },
        { minSend: '1000.00', maxSend: null, fee: '30.00' },
      ],
    });
    assert.deepEqual((await quote('1000')).body, { receive_amount: '1000.00', provider_fee: '30.00', send_amount: '1030.00' });
    assert.deepEqual((await quote('994.99')).body, { receive_amount: '994.99', provider_fee: '5.00', send_amount: '999.99' });
    assert.deepEqual((await quote('995')).body, { receive_amount: '995.00', provider_fee: '30.00', send_amount: '1025.00' });
    await cli('fees:set', '--tiers', SEEDED);
    assert.equal((await quote('1000')).body.send_amount, '1010.00');
  });

  it('refuses a schedule with a gap, an overlap, a start above 0, a ceiling on the last tier or bad notation, and keeps the old one', async () => {
    const refusals: Array<[string, RegExp]> = [
      ['0-4999.99:10,5000.01-:25', /tier 2 must start one kobo after tier 1 ends/],
      ['0-5000:10,5000-:25', /tier 2 must start one kobo after tier 1 ends/],
      ['1-5000:10,5000.01-:25', /the first tier must start at 0/],
      ['0-5000:10,5000.01-9000:25', /the last tier must be open-ended/],
      ['0-5000:10,5000.01-:5', /the fee cannot be lower than the fee of a smaller send/],
      ['0-5000:10;5000.01-:5', /is not MIN-MAX:FEE/],
    ];
    for (const [tiers, message] of refusals) {
      await assert.rejects(
        cli('fees:set', '--tiers', tiers),
        (error: { code: number; stderr: string }) => error.code === 1 && message.test(error.stderr),
        tiers,
      );
    }
    await assert.rejects(
      cli('fees:set'),
      (error: { code: number; stderr: string }) => error.code === 2 && /missing --tiers/.test(error.stderr),
    );
    assert.equal((await cli('fees:show')).stdout.trim(), '0.00-4999.99:10.00,5000.00-50000.00:25.00,50000.01-:50.00');
  });
});
