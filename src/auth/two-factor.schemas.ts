import { z } from 'zod';
import { USER_ROLES } from '../http/roles';

const totpCodeSchema = z
  .string()
  .trim()
  .regex(/^\d{6}$/, { error: 'code must be the 6 digits your authenticator app shows' });

export const totpCodeBodySchema = z.object({ code: totpCodeSchema });

/** The second step of signing in: the authenticator's code, or one of the recovery codes. */
export const secondFactorBodySchema = z.union(
  [z.object({ code: totpCodeSchema }).strict(), z.object({ recoveryCode: z.string().trim().min(1).max(64) }).strict()],
  { error: 'give either code (6 digits) or recoveryCode' },
);

export const secondFactorSignedInSchema = z.object({ expiresAt: z.iso.datetime() });

export const twoFactorStatusSchema = z.object({
  enrolled: z.boolean(),
  recoveryCodesLeft: z.number().int(),
  /** Whether the tenant requires two-factor sign-in of `requiredForRoles`. */
  tenantRequires: z.boolean(),
  requiredForRoles: z.array(z.enum(USER_ROLES)),
  requiredOfYou: z.boolean(),
});

export const enrolmentStartedSchema = z.object({
  /** Base32, for typing into an authenticator app that cannot scan. */
  secret: z.string(),
  otpauthUri: z.string(),
  /** The otpauth URI as an SVG QR code. */
  qrCodeSvg: z.string(),
});

export const recoveryCodesSchema = z.object({ recoveryCodes: z.array(z.string()) });

export const steppedUpSchema = z.object({ codeVerifiedAt: z.iso.datetime() });

export const twoFactorResetSchema = z.object({ sessionsEnded: z.number().int() });
