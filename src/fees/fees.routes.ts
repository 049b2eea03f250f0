import { defineRoute, type RouteDefinition } from '../http/route';
import { formatKobo } from '../money';
import { feeQuoteQuerySchema, feeQuoteSchema } from './fees.schemas';
import type { FeesService } from './fees.service';

export function feesRoutes(deps: { fees: FeesService }): RouteDefinition[] {
  const { fees } = deps;
  return [
    defineRoute({
      method: 'get',
      path: '/v1/fees/calculate',
      summary: 'What a payer must send so that `amount` lands in the balance, under the current fee tiers',
      tag: 'fees',
      auth: 'apiKey',
      query: feeQuoteQuerySchema,
      responses: { 200: { description: 'The quote; send_amount = receive_amount + provider_fee', schema: feeQuoteSchema } },
      errors: [400, 422],
      handle: async ({ query }) => {
        const quote = await fees.quote(query.amount);
        return {
          status: 200,
          body: { receive_amount: formatKobo(quote.receive), provider_fee: formatKobo(quote.fee), send_amount: formatKobo(quote.send) },
        };
      },
    }),
  ];
}
