import { z } from 'zod';
import { timestampSchema } from '../http/schemas';

const newPassword = z
  .string({ error: 'newPassword must be a string' })
  .min(12, { error: 'password must be at least 12 characters' })
  .max(1000);

export const changePasswordBodySchema = z.object({
  currentPassword: z.string({ error: 'currentPassword must be a string' }).min(1, { error: 'give the current password' }).max(1000),
  newPassword,
});

export const resetPasswordBodySchema = z.object({
  token: z.string({ error: 'token must be a string' }).min(1, { error: 'give the reset token' }).max(200),
  newPassword,
});

export const sessionsEndedSchema = z.object({ sessionsEnded: z.number().int() });

export const issuedResetSchema = z.object({ token: z.string(), expiresAt: timestampSchema });
