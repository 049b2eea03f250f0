import { accountRefParamsSchema } from '../accounts/accounts.schemas';
import { paginate, uuidCursor } from '../http/pagination';
import { apiKeyIdOf, defineRoute, idempotencyKeyOf, tenantOf, type RouteDefinition } from '../http/route';
import { validIdempotencyKey } from '../idempotency/request-hash';
import {
  presentAcceptedSettlement,
  presentAccountName,
  presentBank,
  presentScheduledPayout,
  presentSettlementView,
  presentTransferView,
} from './settlement.presenter';
import {
  banksResponseSchema,
  lookupBodySchema,
  lookupResponseSchema,
  settleBodySchema,
  settleResponseSchema,
  settlementListQuerySchema,
  settlementListResponseSchema,
  settlementRefParamsSchema,
  settlementViewSchema,
} from './settlements.schemas';
import type { ScheduledPayoutsService } from './scheduled-payouts.service';
import type { SettlementsService } from './settlements.service';

const DEFAULT_PAGE_SIZE = 50;

export function settlementsRoutes(deps: { settlements: SettlementsService; scheduledPayouts: ScheduledPayoutsService }): RouteDefinition[] {
  const { settlements, scheduledPayouts } = deps;
  return [
    defineRoute({
      method: 'post',
      path: '/v1/accounts/:accountRef/settle',
      summary: 'Pay out from the ledger balance to a Nigerian bank account, or to a saved beneficiary (asynchronous)',
      tag: 'settlements',
      auth: 'apiKey',
      scope: 'payouts:write',
      params: accountRefParamsSchema,
      body: settleBodySchema,
      idempotencyKey: true,
      responses: {
        202: {
          description:
            "Accepted (`pending`; with scheduledFor, scheduled: its amount reserved until then, `schedule` says when); or, under the tenant's approval policy, `awaiting_approval`: its amount is reserved until a second person approves it on the dashboard. Track it with GET /v1/transfers/{merchantTxRef}",
          schema: settleResponseSchema,
        },
      },
      errors: [400, 403, 404, 409, 429],
      handle: async ({ params, body, ctx }) => {
        const key = validIdempotencyKey(idempotencyKeyOf(ctx));
        const tenantId = tenantOf(ctx).id;
        const maker = { kind: 'api_key' as const, apiKeyId: apiKeyIdOf(ctx) };
        if (body.to === 'beneficiary')
          return {
            status: 202,
            body: presentAcceptedSettlement(await settlements.initiateToBeneficiary(tenantId, params.accountRef, body, key, { maker })),
          };
        const { amount, bankCode, accountNumber, narration, metadata, scheduledFor } = body;
        const request = { amount, bankCode, accountNumber, narration, metadata, scheduledFor };
        const settlement = await settlements.initiate(tenantId, params.accountRef, request, key, { maker });
        return { status: 202, body: presentAcceptedSettlement(settlement) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/transfers',
      summary:
        "The tenant's settlements (payouts made), newest first; with scheduled=true, its payouts still scheduled for later, soonest first; with metadata[key]=value, only those carrying every pair given",
      tag: 'settlements',
      auth: 'apiKey',
      query: settlementListQuerySchema,
      responses: { 200: { description: 'A page of settlements', schema: settlementListResponseSchema } },
      errors: [400],
      handle: async ({ query, ctx }) => {
        const limit = query.limit ?? DEFAULT_PAGE_SIZE;
        if (query.scheduled === 'true') {
          const scheduled = await scheduledPayouts.list(tenantOf(ctx).id, uuidCursor(query.after), limit, query.metadata);
          const page = paginate(scheduled, limit, (payout) => payout.id);
          return { status: 200, body: { transfers: page.items.map(presentScheduledPayout), pagination: page.pagination } };
        }
        const rows = await settlements.list(tenantOf(ctx).id, uuidCursor(query.after), limit, query.metadata);
        const page = paginate(rows, limit, (settlement) => settlement.id);
        return {
          status: 200,
          body: { transfers: page.items.map((settlement) => presentSettlementView(settlement)), pagination: page.pagination },
        };
      },
    }),
    // Registered before /v1/transfers/:merchantTxRef so "banks" is never read as a reference.
    defineRoute({
      method: 'get',
      path: '/v1/transfers/banks',
      summary: "Banks a settlement can pay into (the provider's list, cached)",
      tag: 'settlements',
      auth: 'apiKey',
      responses: { 200: { description: 'The banks', schema: banksResponseSchema } },
      handle: async () => ({ status: 200, body: { banks: (await settlements.banks()).map(presentBank) } }),
    }),
    defineRoute({
      method: 'post',
      path: '/v1/transfers/lookup',
      summary: 'Confirm the name on a destination account before settling',
      tag: 'settlements',
      auth: 'apiKey',
      scope: 'read',
      body: lookupBodySchema,
      responses: { 200: { description: 'The account name', schema: lookupResponseSchema } },
      errors: [400, 404, 429],
      handle: async ({ body, ctx }) => {
        const found = await settlements.lookupAccount(tenantOf(ctx).id, body.accountNumber, body.bankCode);
        return { status: 200, body: presentAccountName(found) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/transfers/:merchantTxRef',
      summary: 'Status of a settlement',
      tag: 'settlements',
      auth: 'apiKey',
      params: settlementRefParamsSchema,
      responses: { 200: { description: 'The transfer', schema: settlementViewSchema } },
      errors: [404],
      handle: async ({ params, ctx }) => {
        const { transfer, schedule } = await settlements.findTransfer(tenantOf(ctx).id, params.merchantTxRef);
        return { status: 200, body: presentTransferView(transfer, schedule) };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/v1/transfers/:merchantTxRef/cancel',
      summary: 'Cancel a payout scheduled for later, before it starts: its reserved amount is released',
      tag: 'settlements',
      auth: 'apiKey',
      scope: 'payouts:write',
      params: settlementRefParamsSchema,
      responses: {
        200: {
          description: 'The payout, `cancelled` (cancelling a cancelled one answers it again)',
          schema: settlementViewSchema,
        },
      },
      errors: [404, 409],
      handle: async ({ params, ctx }) => {
        const cancelled = await scheduledPayouts.cancel({ tenantId: tenantOf(ctx).id }, params.merchantTxRef);
        return { status: 200, body: presentScheduledPayout(cancelled) };
      },
    }),
  ];
}
