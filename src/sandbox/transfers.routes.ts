import type Router from '@koa/router';
import { requireProviderAuth } from './auth';
import { findBank, SANDBOX_BANKS } from './banks';
import { failDuringOutage } from './faults';
import { nameAtBank } from './names';
import { transferWire } from './provider-wire';
import type { TransferProfile } from './transfer-profiles';
import type { SandboxDeps } from './sandbox.deps';
import { answer, parseInput, SandboxHttpError } from './sandbox-http';
import { accountLookupSchema, transferSchema } from './sandbox.schemas';

/** How long past the client's timeout a held submit response waits before its socket is dropped. */
const HOLD_PAST_TIMEOUT_MS = 5_000;

function requireKnownBank(bankCode: string): void {
  if (!findBank(bankCode)) throw new SandboxHttpError(400, '01', 'invalid bank code');
}

/** The provider's answer to a reference it takes for one it has: 409, or 400 code 26 when it describes it. */
function duplicateRefusal(profile: TransferProfile): SandboxHttpError {
  return profile.duplicateReference === 'described'
    ? new SandboxHttpError(400, '26', 'transaction reference already exists')
    : new SandboxHttpError(409, '409', 'duplicate merchantTxRef');
}

export function registerTransferRoutes(router: Router, deps: SandboxDeps): void {
  const { config, logger, state, scheduler, transfers } = deps;
  const auth = requireProviderAuth(state);

  /** A reference never recorded, refused as a duplicate all the same (the profile's first N submissions of it). */
  function refuseAsFalseDuplicate(profile: TransferProfile, reference: string): void {
    if (state.transferByReference(reference)) return;
    const refused = state.falseDuplicatesByReference.get(reference) ?? 0;
    if (refused >= profile.falseDuplicates) return;
    state.falseDuplicatesByReference.set(reference, refused + 1);
    throw duplicateRefusal(profile);
  }

  router.post('/v2/transfers/bank', auth, async (ctx) => {
    const input = parseInput(transferSchema, ctx.request.body);
    requireKnownBank(input.bankCode);
    const profile = transfers.profileFor({ reference: input.merchantTxRef, accountNumber: input.accountNumber });
    failDuringOutage(state, profile.outage, { reference: input.merchantTxRef });
    refuseAsFalseDuplicate(profile, input.merchantTxRef);
    const { transfer, created } = transfers.submit({ ...input, amountKobo: input.amount, narration: input.narration ?? '' });
    if (!created) {
      if (transfer.profile.duplicateReference !== 'original') throw duplicateRefusal(transfer.profile);
      answer(ctx, transferWire(transfer), { code: '200', description: 'Transfer already submitted' });
      return;
    }
    switch (transfer.profile.submitAnswer) {
      case 'timeout':
        // The transfer exists, but the caller only learns that by asking again after its timeout.
        logger.info({ merchantTxRef: transfer.merchantTxRef }, 'sandbox holding transfer response');
        ctx.respond = false;
        await scheduler.sleep(config.PROVIDER_TIMEOUT + HOLD_PAST_TIMEOUT_MS);
        ctx.req.socket.destroy();
        return;
      case 'pending_code':
        // NIP's "request processing in progress": neither accepted nor refused.
        answer(ctx, transferWire(transfer), { code: '09', description: 'request processing in progress' });
        return;
      case 'error_after_recording':
        throw new SandboxHttpError(400, '96', 'system malfunction');
      default:
        answer(ctx, transferWire(transfer), { code: '200', description: 'Transfer accepted' });
    }
  });

  router.get('/v1/transfers/banks', auth, (ctx) => {
    answer(ctx, { results: SANDBOX_BANKS.map((bank) => ({ bankCode: bank.code, bankName: bank.name })) });
  });

  router.post('/v1/transfers/bank/lookup', auth, (ctx) => {
    const input = parseInput(accountLookupSchema, ctx.request.body);
    requireKnownBank(input.bankCode);
    failDuringOutage(state, transfers.profileFor({ accountNumber: input.accountNumber }).outage, { accountNumber: input.accountNumber });
    const accountName = nameAtBank(state.accountNames, input.accountNumber);
    if (accountName === null) throw new SandboxHttpError(404, '01', 'account not found');
    answer(ctx, { accountNumber: input.accountNumber, accountName });
  });
}
