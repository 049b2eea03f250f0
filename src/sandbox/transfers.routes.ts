import type Router from '@koa/router';
import { requireProviderAuth } from './auth';
import { findBank, SANDBOX_BANKS } from './banks';
import { nameLookupFinds } from './magic-values';
import { accountHolderName } from './names';
import { transferWire } from './provider-wire';
import type { SandboxDeps } from './sandbox.deps';
import { answer, parseInput, SandboxHttpError } from './sandbox-http';
import { accountLookupSchema, transferSchema } from './sandbox.schemas';

/** How long past the client's timeout a held submit response waits before its socket is dropped. */
const HOLD_PAST_TIMEOUT_MS = 5_000;

function requireKnownBank(bankCode: string): void {
  if (!findBank(bankCode)) throw new SandboxHttpError(400, '01', 'invalid bank code');
}

export function registerTransferRoutes(router: Router, deps: SandboxDeps): void {
  const { config, logger, state, scheduler, transfers } = deps;
  const auth = requireProviderAuth(state);

  router.post('/v2/transfers/bank', auth, async (ctx) => {
    const input = parseInput(transferSchema, ctx.request.body);
    requireKnownBank(input.bankCode);
    const { transfer, created } = transfers.submit({ ...input, amountKobo: input.amount, narration: input.narration ?? '' });
    if (created && transfer.script.holdsSubmitResponse) {
      // The transfer exists, but the caller only learns that by asking again after its timeout.
      logger.info({ merchantTxRef: transfer.merchantTxRef }, 'sandbox holding transfer response');
      ctx.respond = false;
      await scheduler.sleep(config.PROVIDER_TIMEOUT + HOLD_PAST_TIMEOUT_MS);
      ctx.req.socket.destroy();
      return;
    }
    answer(ctx, transferWire(transfer), { code: '200', description: created ? 'Transfer accepted' : 'Transfer already submitted' });
  });

  router.get('/v1/transfers/banks', auth, (ctx) => {
    answer(ctx, { results: SANDBOX_BANKS.map((bank) => ({ bankCode: bank.code, bankName: bank.name })) });
  });

  router.post('/v1/transfers/bank/lookup', auth, (ctx) => {
    const input = parseInput(accountLookupSchema, ctx.request.body);
    requireKnownBank(input.bankCode);
    if (!nameLookupFinds(input.accountNumber)) throw new SandboxHttpError(404, '01', 'account not found');
    answer(ctx, { accountNumber: input.accountNumber, accountName: accountHolderName(input.accountNumber) });
  });
}
