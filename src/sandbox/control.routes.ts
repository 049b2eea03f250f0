import type Router from '@koa/router';
import { expireAllTokens } from './auth';
import { isAttemptOf } from './attempt-references';
import { submissionView } from './provider-wire';
import type { SandboxDeps } from './sandbox.deps';
import { parseInput, SandboxHttpError } from './sandbox-http';
import { simulatePayment, simulatePaymentBatch } from './sandbox-payments';
import { nameAtBank } from './names';
import {
  accountNameParamsSchema,
  accountNameSchema,
  faultSettingsSchema,
  paymentBatchSchema,
  redeliverSchema,
  settleTransferSchema,
  simulatedPaymentSchema,
  tokenTtlSchema,
  transferProfileRuleSchema,
  transferReferenceParamsSchema,
} from './sandbox.schemas';
import type { DeliveryResult, SandboxState } from './sandbox.state';

function deliveryView(delivery: DeliveryResult) {
  return { status: delivery.status, ...(delivery.error ? { error: delivery.error } : {}) };
}

function activeTokens(state: SandboxState): number {
  const now = Date.now();
  return [...state.tokens.values()].filter((expiresAtMs) => expiresAtMs > now).length;
}

/** Sandbox-only routes: no auth and no injected faults, so tests can always steer and inspect. */
export function registerControlRoutes(router: Router, deps: SandboxDeps): void {
  const { state, scheduler, webhooks } = deps;

  router.get('/healthz', (ctx) => {
    ctx.body = { status: 'ok' };
  });

  router.post('/sandbox/payments', async (ctx) => {
    ctx.body = await simulatePayment(deps, parseInput(simulatedPaymentSchema, ctx.request.body));
  });

  router.post('/sandbox/payments/batch', async (ctx) => {
    ctx.body = { events: await simulatePaymentBatch(deps, parseInput(paymentBatchSchema, ctx.request.body)) };
  });

  router.get('/sandbox/webhooks', (ctx) => {
    ctx.body = {
      events: state.events.map((event) => ({
        requestId: event.requestId,
        eventType: event.eventType,
        payload: JSON.parse(event.body) as unknown,
        body: event.body,
        headers: event.headers,
        deliveries: event.deliveries.map(deliveryView),
      })),
    };
  });

  router.post('/sandbox/webhooks/redeliver', async (ctx) => {
    const { requestId } = parseInput(redeliverSchema, ctx.request.body);
    const event = state.events.find((candidate) => candidate.requestId === requestId);
    if (!event) throw new SandboxHttpError(404, '404', 'event not found');
    ctx.body = { requestId, delivery: deliveryView(await webhooks.redeliver(event)) };
  });

  router.get('/sandbox/transfers/:merchantTxRef', (ctx) => {
    const { merchantTxRef } = parseInput(transferReferenceParamsSchema, ctx.params);
    const submissions = [...state.transfers.values()].filter((transfer) => isAttemptOf(transfer.merchantTxRef, merchantTxRef));
    ctx.body = {
      merchantTxRef,
      submissions: submissions.map(submissionView),
      // Every payout ever made (a refunded one included), and those the provider has not taken back.
      payouts: submissions.filter((transfer) => transfer.paidOut).length,
      standingPayouts: submissions.filter((transfer) => transfer.paidOut && transfer.status !== 'REFUND').length,
      calls: (state.callsByBase.get(merchantTxRef) ?? []).map((call) => ({ at: new Date(call.atMs).toISOString(), route: call.route })),
    };
  });

  router.post('/sandbox/transfers/:merchantTxRef/settle', (ctx) => {
    const { merchantTxRef } = parseInput(transferReferenceParamsSchema, ctx.params);
    const { status } = parseInput(settleTransferSchema, ctx.request.body ?? {});
    const transfer = state.transferByReference(merchantTxRef);
    if (!transfer) throw new SandboxHttpError(404, '01', 'transaction not found');
    if (!deps.transfers.settleNow(transfer, status))
      throw new SandboxHttpError(409, '409', `only a PROCESSING transfer can be settled (it is ${transfer.status})`);
    ctx.body = submissionView(transfer);
  });

  router.post('/sandbox/transfers/:merchantTxRef/refund', (ctx) => {
    const { merchantTxRef } = parseInput(transferReferenceParamsSchema, ctx.params);
    const transfer = state.transferByReference(merchantTxRef);
    if (!transfer) throw new SandboxHttpError(404, '01', 'transaction not found');
    if (!deps.transfers.refund(transfer))
      throw new SandboxHttpError(409, '409', `only a SUCCESS transfer can be refunded (it is ${transfer.status})`);
    ctx.body = submissionView(transfer);
  });

  // A bank renames an account (or closes it: null); name enquiries answer so until DELETE or a reset.
  router.put('/sandbox/accounts/:accountNumber/name', (ctx) => {
    const { accountNumber } = parseInput(accountNameParamsSchema, ctx.params);
    state.accountNames.set(accountNumber, parseInput(accountNameSchema, ctx.request.body).accountName);
    ctx.body = { accountNumber, accountName: nameAtBank(state.accountNames, accountNumber) };
  });

  router.delete('/sandbox/accounts/:accountNumber/name', (ctx) => {
    const { accountNumber } = parseInput(accountNameParamsSchema, ctx.params);
    state.accountNames.delete(accountNumber);
    ctx.body = { accountNumber, accountName: nameAtBank(state.accountNames, accountNumber) };
  });

  router.get('/sandbox/faults', (ctx) => {
    ctx.body = state.faults;
  });

  router.post('/sandbox/faults', (ctx) => {
    state.faults = parseInput(faultSettingsSchema, ctx.request.body);
    ctx.body = state.faults;
  });

  // Back to what the environment configured (SANDBOX_FAILURE_RATE, SANDBOX_LATENCY).
  router.delete('/sandbox/faults', (ctx) => {
    state.faults = { ...state.configuredFaults, routes: [...state.configuredFaults.routes] };
    ctx.body = state.faults;
  });

  // Bad-day profiles for transfers matching a merchantTxRef prefix and/or a destination (none: every transfer).
  router.get('/sandbox/profiles', (ctx) => {
    ctx.body = { profiles: state.profileRules };
  });

  router.post('/sandbox/profiles', (ctx) => {
    const { match, ...profile } = parseInput(transferProfileRuleSchema, ctx.request.body);
    const rule = {
      id: state.nextProfileRuleId++,
      match,
      profile: Object.fromEntries(Object.entries(profile).filter(([, value]) => value !== undefined)),
    };
    state.profileRules.push(rule);
    ctx.status = 201;
    ctx.body = rule;
  });

  // Back to the environment's profile (SANDBOX_LOOKUP_LAG, SANDBOX_DUPLICATE_REFERENCE) and the magic values.
  router.delete('/sandbox/profiles', (ctx) => {
    state.profileRules = [];
    ctx.body = { profiles: [] };
  });

  router.get('/sandbox/tokens', (ctx) => {
    ctx.body = { issued: state.tokensIssued, rejected: state.tokensRejected, active: activeTokens(state), ttlMs: state.tokenTtlMs };
  });

  router.post('/sandbox/tokens/expire', (ctx) => {
    ctx.body = { expired: expireAllTokens(state) };
  });

  router.post('/sandbox/tokens/ttl', (ctx) => {
    state.tokenTtlMs = parseInput(tokenTtlSchema, ctx.request.body).ttlMs;
    ctx.body = { ttlMs: state.tokenTtlMs };
  });

  router.post('/sandbox/reset', (ctx) => {
    scheduler.cancelAll();
    state.reset();
    ctx.body = { reset: true };
  });
}
