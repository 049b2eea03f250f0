import type { Config } from '../config';
import type { CustomersService } from '../customers/customers.service';
import { defineRoute, userOf, type RouteDefinition } from '../http/route';
import { paginate, uuidCursor } from '../http/pagination';
import { statementQuerySchema } from './statement.schemas';
import { statementCsv } from './statement-csv';
import type { AccountFunds } from '../ledger/ledger-reads';
import { TRANSFER_FUNDS } from '../ledger/posting-engine';
import { presentDashboardStatement } from './statement.presenter';
import type { StatementService } from './statement.service';
import { formatKobo } from '../money';
import { atQuerySchema } from '../http/schemas';
import { presentAccount, presentBalanceAt, presentDailyBalances, presentFreeze, presentReserved } from './account.presenter';
import type { AccountRecord } from './accounts.repo';
import {
  accountSearchQuerySchema,
  accountSearchResponseSchema,
  dashboardAccountSchema,
  dashboardStatementResponseSchema,
  statementExportQuerySchema,
} from './accounts.dashboard.schemas';
import { accountRefParamsSchema, balanceAtResponseSchema, dailyBalancesQuerySchema, dailyBalancesResponseSchema } from './accounts.schemas';
import { DAILY_BALANCES_TIME_ZONE, type AccountsService } from './accounts.service';
import type { RateLimits } from '../rate-limits/rate-limits';
import { countOnce } from '../http/count-once';

const PAGE_SIZE = 20;
const STATEMENT_PAGE_SIZE = 50;

function presentWithBalances(
  account: AccountRecord,
  funds: AccountFunds,
  customer: { name: string; externalRef: string },
  settlesFrom: Config['SETTLEMENT_FUNDS'],
) {
  return {
    ...presentAccount(account),
    CustomerName: customer.name,
    CustomerExternalRef: customer.externalRef,
    balances: {
      ledgerBalance: formatKobo(funds.ledgerBalance),
      availableBalance: formatKobo(funds.ledgerBalance - funds.pendingCredits),
      pendingCredits: formatKobo(funds.pendingCredits),
      heldBalance: formatKobo(funds.heldBalance),
      reserved: presentReserved(funds),
      settleable: formatKobo(funds.spendable[settlesFrom]),
      settlesFrom,
      transferable: formatKobo(funds.spendable[TRANSFER_FUNDS]),
    },
    freeze: presentFreeze(account),
  };
}

/** The dashboard's account pages: the same services as /v1, behind the session. */
export function accountsDashboardRoutes(deps: {
  accounts: AccountsService;
  customers: CustomersService;
  statements: StatementService;
  config: Pick<Config, 'SETTLEMENT_FUNDS'>;
  limits: Pick<RateLimits, 'exports'>;
}): RouteDefinition[] {
  const { accounts, customers, statements, config, limits } = deps;
  return [
    defineRoute({
      method: 'get',
      path: '/auth/accounts',
      summary:
        "Search the tenant's accounts by AccountRef, account number, customer externalRef (exact) or customer name (any part), and by metadata[key]=value",
      tag: 'dashboard',
      auth: 'session',
      query: accountSearchQuerySchema,
      responses: { 200: { description: 'A page of accounts with balances, oldest first', schema: accountSearchResponseSchema } },
      errors: [400],
      handle: async ({ query, ctx }) => {
        const text = query.q ? query.q : null;
        const page = paginate(
          await accounts.search(userOf(ctx).tenantId, text, uuidCursor(query.after), PAGE_SIZE, query.metadata),
          PAGE_SIZE,
          (hit) => hit.id,
        );
        const funds = await accounts.fundsOf(page.items.map((hit) => hit.id));
        return {
          status: 200,
          body: {
            accounts: page.items.map((hit) =>
              presentWithBalances(
                hit,
                funds.get(hit.id)!,
                { name: hit.customerName, externalRef: hit.customerExternalRef },
                config.SETTLEMENT_FUNDS,
              ),
            ),
            pagination: page.pagination,
          },
        };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/auth/accounts/:accountRef',
      summary: 'One account with its balances and customer',
      tag: 'dashboard',
      auth: 'session',
      params: accountRefParamsSchema,
      responses: { 200: { description: 'The account', schema: dashboardAccountSchema } },
      errors: [404],
      handle: async ({ params, ctx }) => {
        const tenantId = userOf(ctx).tenantId;
        const { account, funds } = await accounts.balance(tenantId, params.accountRef);
        const customer = await customers.find(tenantId, account.customerId);
        return {
          status: 200,
          body: presentWithBalances(account, funds, { name: customer.name, externalRef: customer.external_ref }, config.SETTLEMENT_FUNDS),
        };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/auth/accounts/:accountRef/balance',
      summary: 'The ledger balance as of `at` (as GET /v1/accounts/{accountRef}/balance?at=); without `at`, as of now',
      tag: 'dashboard',
      auth: 'session',
      params: accountRefParamsSchema,
      query: atQuerySchema,
      responses: { 200: { description: 'The balance at that instant', schema: balanceAtResponseSchema } },
      errors: [400, 404],
      handle: async ({ params, query, ctx }) => {
        const at = query.at !== undefined ? new Date(query.at) : new Date();
        const { account, balance } = await accounts.balanceAt(userOf(ctx).tenantId, params.accountRef, at);
        return { status: 200, body: presentBalanceAt(account, balance, at) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/auth/accounts/:accountRef/daily-balances',
      summary: "The account's Africa/Lagos days from `from` to `to` (as GET /v1/accounts/{accountRef}/daily-balances)",
      tag: 'dashboard',
      auth: 'session',
      params: accountRefParamsSchema,
      query: dailyBalancesQuerySchema,
      responses: { 200: { description: 'Every day of the range, oldest first', schema: dailyBalancesResponseSchema } },
      errors: [400, 404],
      handle: async ({ params, query, ctx }) => {
        const { account, days } = await accounts.dailyBalances(userOf(ctx).tenantId, params.accountRef, query.from, query.to);
        return { status: 200, body: presentDailyBalances(account, days, DAILY_BALANCES_TIME_ZONE) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/auth/accounts/:accountRef/statement',
      summary: 'The account statement (as GET /v1/accounts/{accountRef}/statement), each entry with its ledger transaction (TransactionId)',
      tag: 'dashboard',
      auth: 'session',
      params: accountRefParamsSchema,
      query: statementQuerySchema,
      responses: { 200: { description: 'A statement page', schema: dashboardStatementResponseSchema } },
      errors: [400, 404],
      handle: async ({ params, query, ctx }) => {
        const limit = query.limit ?? STATEMENT_PAGE_SIZE;
        const statement = await statements.statement(userOf(ctx).tenantId, params.accountRef, {
          limit,
          ...(query.after !== undefined ? { after: query.after } : {}),
          ...(query.from ? { from: new Date(query.from) } : {}),
          ...(query.to ? { to: new Date(query.to) } : {}),
        });
        return { status: 200, body: presentDashboardStatement(statement, limit) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/auth/accounts/:accountRef/statement.csv',
      summary: 'A period of the statement as CSV, streamed (without `to`, up to the time of the request)',
      tag: 'dashboard',
      auth: 'session',
      params: accountRefParamsSchema,
      query: statementExportQuerySchema,
      responses: { 200: { description: 'text/csv, one line per entry, oldest first' } },
      errors: [400, 404, 429],
      handle: async ({ params, query, ctx }) => {
        await countOnce(ctx, 'exports', () => limits.exports.consume(userOf(ctx).tenantId));
        const to = query.to ? new Date(query.to) : new Date();
        const from = query.from ? new Date(query.from) : undefined;
        const csv = await statementCsv(statements, userOf(ctx).tenantId, params.accountRef, { to, ...(from ? { from } : {}) });
        const name =
          `statement-${params.accountRef}-${from ? from.toISOString().slice(0, 10) : 'start'}-to-${to.toISOString().slice(0, 10)}.csv`.replace(
            /[^A-Za-z0-9._-]/g,
            '_',
          );
        return {
          status: 200,
          body: csv,
          headers: { 'Content-Type': 'text/csv; charset=utf-8', 'Content-Disposition': `attachment; filename="${name}"` },
        };
      },
    }),
  ];
}
