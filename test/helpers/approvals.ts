import type { ScheduleHandle } from '@temporalio/client';
import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import { ensurePeriodicSchedules } from '../../src/workflow-starts/periodic-schedules';
import { fundAccount, provisionAccount, type ProvisionedAccount } from './fixtures';
import { call, type HttpResponse } from './http';
import { dashboardUser, type DashboardUser } from './session';
import type { Stack } from './stack';

/** A destination no other test names, whose ending picks no sandbox outcome: it pays at the first status check. */
export const freshAccountNumber = (): string => `${String(randomInt(100_000, 1_000_000))}0001`;

/** A request to the dashboard API as one of its users. */
export const asUser = (stack: Stack, user: DashboardUser, method: string, path: string, body?: unknown): Promise<HttpResponse> =>
  call(stack.apiUrl, method, path, { cookie: user.cookie, ...(body !== undefined ? { body } : {}) });

/** The users of maker-checker: an admin who sets the approval policy, an operator who makes payouts, an approver. */
export interface ApprovalUsers {
  admin: DashboardUser;
  operator: DashboardUser;
  approver: DashboardUser;
}

/** A tenant's admin, operator and approver, and the approval policy its admin sets (`policy`, as the PUT sends it). */
export async function approvalUsers(stack: Stack, tenantId: string, policy: Record<string, unknown>): Promise<ApprovalUsers> {
  const admin = await dashboardUser(stack, tenantId, 'admin');
  const operator = await dashboardUser(stack, tenantId, 'operator');
  const approver = await dashboardUser(stack, tenantId, 'approver');
  const set = await asUser(stack, admin, 'PUT', '/auth/approval-policy', policy);
  assert.equal(set.status, 200, set.text);
  return { admin, operator, approver };
}

/** The reservation expiry Schedule, made and paused: a test runs it by hand (`trigger()`) and deletes it after. */
export async function pausedExpirySchedule(stack: Stack): Promise<ScheduleHandle> {
  const [id] = await ensurePeriodicSchedules(stack.infra.temporal, stack.config, ['reservationExpiry']);
  const schedule = stack.infra.temporal.schedule.getHandle(id!);
  await schedule.pause('the test runs it by hand');
  return schedule;
}

/** A new account (of a customer of its own) of the API key's tenant, funded with `kobo`. */
export async function fundedAccount(stack: Stack, apiKey: string, kobo = 10_000_00n): Promise<ProvisionedAccount> {
  const account = await provisionAccount(stack, apiKey);
  await fundAccount(stack, account.ID, kobo);
  return account;
}
