import { z } from 'zod';
import { defineRoute, type RouteDefinition } from '../http/route';
import { moneySchema } from '../http/schemas';
import { formatKobo } from '../money';
import { feeQuoteQuerySchema, feeQuoteSchema } from './fees.schemas';
import type { FeesService } from './fees.service';

const feeTiersSchema = z.object({ tiers: z.array(z.object({ minSend: moneySchema, maxSend: moneySchema.nullable(), fee: moneySchema })) });

/** The dashboard's fee calculator: the same quote as GET /v1/fees/calculate, and the tiers behind it. */
export function feesDashboardRoutes(deps: { fees: FeesService }): RouteDefinition[] {
  const { fees } = deps;
  return [
    defineRoute({
      method: 'get',
      path: '/auth/fees/calculate',
      summary: 'What a payer must send so that `amount` lands (as GET /v1/fees/calculate)',
      tag: 'dashboard',
      auth: 'session',
      query: feeQuoteQuerySchema,
      responses: { 200: { description: 'The quote', schema: feeQuoteSchema } },
      errors: [400, 422],
      handle: async ({ query }) => {
        const quote = await fees.quote(query.amount);
        return {
          status: 200,
          body: { receive_amount: formatKobo(quote.receive), provider_fee: formatKobo(quote.fee), send_amount: formatKobo(quote.send) },
        };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/auth/fees/tiers',
      summary: "The provider's fee tiers, on the amount the payer sends",
      tag: 'dashboard',
      auth: 'session',
      responses: { 200: { description: 'The tiers, lowest first', schema: feeTiersSchema } },
      handle: async () => ({
        status: 200,
        body: {
          tiers: (await fees.tiers()).map((tier) => ({
            minSend: formatKobo(tier.minSend),
            maxSend: tier.maxSend === null ? null : formatKobo(tier.maxSend),
            fee: formatKobo(tier.fee),
          })),
        },
      }),
    }),
  ];
}
