import { z } from 'zod';
import { defineRoute, idempotencyKeyOf, tenantOf, userOf, type RouteDefinition } from '../http/route';
import { paginate, uuidCursor } from '../http/pagination';
import { validIdempotencyKey } from '../idempotency/request-hash';
import { formatKobo } from '../money';
import { atQuerySchema } from '../http/schemas';
import { presentAccount, presentBalanceAt, presentDailyBalances, presentFreeze, presentReserved } from './account.presenter';
import type { RateLimits } from '../rate-limits/rate-limits';
import { DAILY_BALANCES_TIME_ZONE, type AccountsService } from './accounts.service';
import {
  accountListQuerySchema,
  accountMetadataBodySchema,
  accountListResponseSchema,
  accountRefParamsSchema,
  balanceAtResponseSchema,
  balanceResponseSchema,
  dailyBalancesQuerySchema,
  dailyBalancesResponseSchema,
  deficitAccountsResponseSchema,
  provisionAccountBodySchema,
  virtualAccountSchema,
} from './accounts.schemas';

const PAGE_SIZE = 20;

export function accountsRoutes(deps: { accounts: AccountsService; limits: Pick<RateLimits, 'accountProvisioning'> }): RouteDefinition[] {
  const { accounts, limits } = deps;
  return [
    defineRoute({
      method: 'post',
      path: '/v1/accounts',
      summary: 'Provision a virtual account (creates or reuses the customer keyed on externalRef)',
      tag: 'accounts',
      auth: 'apiKey',
      scope: 'accounts:write',
      body: provisionAccountBodySchema,
      idempotencyKey: true,
      responses: { 201: { description: 'The account', schema: virtualAccountSchema } },
      errors: [400, 409, 429],
      handle: async ({ body, ctx }) => {
        const key = validIdempotencyKey(idempotencyKeyOf(ctx));
        await limits.accountProvisioning.consume(tenantOf(ctx).id);
        const account = await accounts.provision(tenantOf(ctx).id, body, key);
        return { status: 201, body: presentAccount(account) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/accounts',
      summary: "List the tenant's virtual accounts; with metadata[key]=value, only those carrying every pair given",
      tag: 'accounts',
      auth: 'apiKey',
      query: accountListQuerySchema,
      responses: { 200: { description: 'A page of accounts', schema: accountListResponseSchema } },
      errors: [400],
      handle: async ({ query, ctx }) => {
        const rows = await accounts.list(tenantOf(ctx).id, uuidCursor(query.after), PAGE_SIZE, query.metadata);
        const page = paginate(rows, PAGE_SIZE, (account) => account.id);
        return { status: 200, body: { accounts: page.items.map(presentAccount), pagination: page.pagination } };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/accounts/:accountRef',
      summary: 'One virtual account',
      tag: 'accounts',
      auth: 'apiKey',
      params: accountRefParamsSchema,
      responses: { 200: { description: 'The account', schema: virtualAccountSchema } },
      errors: [404],
      handle: async ({ params, ctx }) => ({ status: 200, body: presentAccount(await accounts.find(tenantOf(ctx).id, params.accountRef)) }),
    }),
    defineRoute({
      method: 'patch',
      path: '/v1/accounts/:accountRef',
      summary: "Change the account's metadata: each key given is set, a key given null deleted, others kept; audited",
      tag: 'accounts',
      auth: 'apiKey',
      scope: 'accounts:write',
      params: accountRefParamsSchema,
      body: accountMetadataBodySchema,
      responses: { 200: { description: 'The account', schema: virtualAccountSchema } },
      errors: [400, 404],
      handle: async ({ params, body, ctx }) => ({
        status: 200,
        body: presentAccount(await accounts.changeMetadata(tenantOf(ctx).id, params.accountRef, body.metadata)),
      }),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/accounts/:accountRef/balance',
      summary: 'Ledger, available and pending balances; with `at`, the ledger balance as of that past instant',
      tag: 'accounts',
      auth: 'apiKey',
      params: accountRefParamsSchema,
      query: atQuerySchema,
      responses: {
        200: {
          description: 'The balances now, or with `at` the balance then',
          schema: z.union([balanceResponseSchema, balanceAtResponseSchema]),
        },
      },
      errors: [400, 404],
      handle: async ({ params, query, ctx }) => {
        if (query.at !== undefined) {
          const at = new Date(query.at);
          const { account, balance } = await accounts.balanceAt(tenantOf(ctx).id, params.accountRef, at);
          return { status: 200, body: presentBalanceAt(account, balance, at) };
        }
        const { account, funds, asOf } = await accounts.balance(tenantOf(ctx).id, params.accountRef);
        return {
          status: 200,
          body: {
            accountRef: account.accountRef,
            currency: account.currency,
            ledgerBalance: formatKobo(funds.ledgerBalance),
            availableBalance: formatKobo(funds.ledgerBalance - funds.pendingCredits),
            pendingCredits: formatKobo(funds.pendingCredits),
            heldBalance: formatKobo(funds.heldBalance),
            reserved: presentReserved(funds),
            freeze: presentFreeze(account),
            inDeficit: account.deficitSince !== null,
            asOf: asOf.toISOString(),
          },
        };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/accounts/:accountRef/daily-balances',
      summary: "The account's Africa/Lagos days from `from` to `to`: each day's opening balance, credits, debits and closing balance",
      tag: 'accounts',
      auth: 'apiKey',
      params: accountRefParamsSchema,
      query: dailyBalancesQuerySchema,
      responses: { 200: { description: 'Every day of the range, oldest first', schema: dailyBalancesResponseSchema } },
      errors: [400, 404],
      handle: async ({ params, query, ctx }) => {
        const { account, days } = await accounts.dailyBalances(tenantOf(ctx).id, params.accountRef, query.from, query.to);
        return { status: 200, body: presentDailyBalances(account, days, DAILY_BALANCES_TIME_ZONE) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/auth/deficit-accounts',
      summary: 'Accounts below zero (a spent provisional credit was reversed); they settle nothing until back above zero',
      tag: 'accounts',
      auth: 'session',
      responses: { 200: { description: 'Longest in deficit first, at most 500', schema: deficitAccountsResponseSchema } },
      errors: [403],
      handle: async ({ ctx }) => {
        const accountsInDeficit = await accounts.inDeficit(userOf(ctx).tenantId);
        return {
          status: 200,
          body: {
            accounts: accountsInDeficit.map((account) => ({
              ...presentAccount(account),
              LedgerBalance: formatKobo(account.ledgerBalance),
            })),
          },
        };
      },
    }),
  ];
}
