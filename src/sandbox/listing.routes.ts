import type Router from '@koa/router';
import { z } from 'zod';
import { formatKobo } from '../money';
import { requireProviderAuth } from './auth';
import type { SandboxDeps } from './sandbox.deps';
import { answer, parseInput, SandboxHttpError } from './sandbox-http';
import { listingWire, listTransactions } from './transaction-listing';

const MAX_PAGE = 1_000;
const DEFAULT_PAGE = 20;
const STARTED_AT = new Date().toISOString();

/** The provider's date filter: yyyy-MM-dd or yyyy-MM-ddTHH:mm:ss, in UTC. */
const providerDate = z.string().regex(/^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}:\d{2})?$/, 'expected yyyy-MM-dd or yyyy-MM-ddTHH:mm:ss');

const listingQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(MAX_PAGE).default(DEFAULT_PAGE),
  cursor: z.string().max(500).optional(),
  dateFrom: providerDate.optional(),
  dateTo: providerDate.optional(),
});

const virtualListingQuerySchema = listingQuerySchema.extend({ virtual_account: z.string().regex(/^\d{10}$/, 'must be 10 digits') });

/** A date alone covers its whole day; a time covers its whole second. */
function bounds(query: z.output<typeof listingQuerySchema>): { fromMs: number; toMs: number } {
  const start = (text: string) => Date.parse(text.length === 10 ? `${text}T00:00:00Z` : `${text}Z`);
  const end = (text: string) => start(text) + (text.length === 10 ? 86_400_000 : 1_000) - 1;
  const fromMs = query.dateFrom ? start(query.dateFrom) : Number.NEGATIVE_INFINITY;
  const toMs = query.dateTo ? end(query.dateTo) : Number.POSITIVE_INFINITY;
  if (Number.isNaN(fromMs) || Number.isNaN(toMs)) throw new SandboxHttpError(400, '400', 'unreadable date');
  if (fromMs > toMs) throw new SandboxHttpError(400, '400', 'dateFrom is after dateTo');
  return { fromMs, toMs };
}

/** The wallet's transaction listing, one virtual account's, and the wallet balance. */
export function registerListingRoutes(router: Router, deps: SandboxDeps): void {
  const { state } = deps;
  const auth = requireProviderAuth(state);

  router.get('/v1/transactions/accounts', auth, (ctx) => {
    const query = parseInput(listingQuerySchema, ctx.query);
    const page = listTransactions(state, { ...bounds(query), limit: query.limit, cursor: query.cursor });
    answer(ctx, { results: page.items.map((item) => listingWire(state, item, 'number')), cursor: page.cursor }, { description: 'Success' });
  });

  router.get('/v1/transactions/virtual', auth, (ctx) => {
    const query = parseInput(virtualListingQuerySchema, ctx.query);
    const account = [...state.accounts.values()].find((candidate) => candidate.bankAccountNumber === query.virtual_account);
    const page = account
      ? listTransactions(state, { ...bounds(query), limit: query.limit, cursor: query.cursor, accountRef: account.accountRef })
      : { items: [], cursor: '' };
    answer(ctx, { results: page.items.map((item) => listingWire(state, item, 'text')), cursor: page.cursor }, { description: 'SUCCESS' });
  });

  router.get('/v1/accounts/balance', auth, (ctx) => {
    answer(ctx, { amount: formatKobo(state.walletBalanceKobo), currency: 'NGN', timeCreated: STARTED_AT }, { description: 'Success' });
  });
}
