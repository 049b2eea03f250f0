/**
 * What a dashboard user may do is a set of permissions, and each role is one such set. Routes check a
 * permission, never a rank: moving money, approving it and setting the rules that move it are separate, so
 * a tenant can give each to different people (the maker of a payout never approves it, whatever the role).
 */
export const PERMISSIONS = {
  read: 'Read everything the dashboard shows; sign out, change one’s own password',
  operate: 'Day-to-day work: KYC decisions, suspensions, misdirected payments, held money, reconciliation runs, webhook replays',
  move_money: 'Pay out (single payouts and batches), move money between accounts, save payout destinations',
  approve_money: 'Approve or reject payouts waiting for approval (never one’s own)',
  set_money_rules: 'Set the rules that move or hold money: split rules, balance sweeps, the approval policy, velocity rules, KYC limits',
  manage_access: 'Manage users, API keys, the webhook signing secret and webhook endpoints',
} as const;

export type Permission = keyof typeof PERMISSIONS;
export const PERMISSION_NAMES = Object.keys(PERMISSIONS) as [Permission, ...Permission[]];

export const ROLE_PERMISSIONS = {
  viewer: ['read'],
  operator: ['read', 'operate', 'move_money'],
  approver: ['read', 'approve_money'],
  admin: ['read', 'operate', 'move_money', 'approve_money', 'set_money_rules', 'manage_access'],
} as const satisfies Record<string, readonly Permission[]>;

export type UserRole = keyof typeof ROLE_PERMISSIONS;
export const USER_ROLES = Object.keys(ROLE_PERMISSIONS) as [UserRole, ...UserRole[]];

export function roleHas(role: UserRole, permission: Permission): boolean {
  return (ROLE_PERMISSIONS[role] as readonly Permission[]).includes(permission);
}

export function permissionsOf(role: UserRole): Permission[] {
  return [...ROLE_PERMISSIONS[role]];
}
