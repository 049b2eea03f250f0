/**
 * Dashboard roles, each including the one before it: a viewer reads everything, an operator also
 * does the day-to-day work (KYC decisions, suspensions, misdirected payments, replays, settlements),
 * an admin also manages the tenant's users, API keys, webhook signing secret and webhook endpoints.
 */
export const USER_ROLES = ['viewer', 'operator', 'admin'] as const;
export type UserRole = (typeof USER_ROLES)[number];

export function roleAllows(actual: UserRole, required: UserRole): boolean {
  return USER_ROLES.indexOf(actual) >= USER_ROLES.indexOf(required);
}
