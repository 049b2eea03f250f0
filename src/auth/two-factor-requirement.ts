import type { SessionStage } from '../http/context';
import type { UserRole } from '../http/roles';

/**
 * The roles a tenant's "require two-factor sign-in" setting applies to: those that move, approve or administer
 * money (every role but the viewer's).
 */
export const ROLES_REQUIRING_TWO_FACTOR: readonly UserRole[] = ['operator', 'approver', 'admin'];

/** A session is signed in once its second factor is given and, where the tenant requires it of the role, enrolled. */
export function sessionStage(session: {
  awaitingSecondFactor: boolean;
  role: UserRole;
  enrolled: boolean;
  tenantRequiresTwoFactor: boolean;
}): SessionStage {
  if (session.awaitingSecondFactor) return 'awaiting_code';
  if (session.tenantRequiresTwoFactor && !session.enrolled && ROLES_REQUIRING_TWO_FACTOR.includes(session.role)) return 'must_enrol';
  return 'signed_in';
}

/** How recent a code a sensitive action asks for (step-up): turning the requirement or one's own two-factor sign-in off. */
export const FRESH_CODE_MAX_AGE_MS = 5 * 60_000;
