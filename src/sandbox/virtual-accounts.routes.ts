import type Router from '@koa/router';
import { randomUUID } from 'node:crypto';
import { requireProviderAuth } from './auth';
import { virtualAccountWire } from './provider-wire';
import type { SandboxDeps } from './sandbox.deps';
import { answer, parseInput } from './sandbox-http';
import { randomAccountNumber } from './sandbox-ids';
import { virtualAccountSchema } from './sandbox.schemas';
import type { SandboxState } from './sandbox.state';

const SANDBOX_BANK_NAME = 'Sandbox MFB';

function unusedAccountNumber(state: SandboxState): string {
  let candidate = randomAccountNumber();
  while (state.accountNumbers.has(candidate)) candidate = randomAccountNumber();
  state.accountNumbers.add(candidate);
  return candidate;
}

export function registerVirtualAccountRoutes(router: Router, deps: SandboxDeps): void {
  const { state } = deps;

  // Idempotent on accountRef: a retried creation gets the same account, never a second number.
  router.post('/v1/accounts/virtual', requireProviderAuth(state), (ctx) => {
    const input = parseInput(virtualAccountSchema, ctx.request.body);
    let account = state.accounts.get(input.accountRef);
    if (!account) {
      account = {
        accountRef: input.accountRef,
        accountHolderId: randomUUID(),
        accountName: input.accountName,
        bankAccountNumber: unusedAccountNumber(state),
        bankAccountName: input.accountName,
        bankName: SANDBOX_BANK_NAME,
        currency: 'NGN',
        expectedAmountKobo: input.expectedAmount ?? null,
        expired: false,
        createdAt: new Date().toISOString(),
      };
      state.accounts.set(account.accountRef, account);
    }
    answer(ctx, virtualAccountWire(account), { description: 'Virtual account created' });
  });
}
