import { z } from 'zod';
import { moneySchema, nairaAmountSchema } from '../http/schemas';

export const feeQuoteQuerySchema = z.object({
  amount: nairaAmountSchema('invalid amount'),
});

export const feeQuoteSchema = z.object({
  receive_amount: moneySchema,
  provider_fee: moneySchema,
  send_amount: moneySchema,
});
