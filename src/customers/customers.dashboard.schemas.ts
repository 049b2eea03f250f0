import { z } from 'zod';
import { paginationSchema } from '../http/schemas';
import { customerSchema } from './customers.schemas';

export const customerSearchQuerySchema = z.object({
  q: z.string().trim().max(100).optional(),
  kycStatus: z.enum(['none', 'pending_review', 'approved', 'rejected']).optional(),
  status: z.enum(['active', 'suspended']).optional(),
  after: z.string().max(100).optional(),
});

export const customerSearchResponseSchema = z.object({
  customers: z.array(customerSchema),
  pagination: paginationSchema,
});
