import assert from 'node:assert/strict';
import { call } from './http';
import { dashboardUser, type DashboardUser } from './session';
import { createTenant, type Stack, type TestTenant } from './stack';

/** A tenant of its own, as a velocity rule judges every payment of its tenant, with the admin who sets its rules. */
export interface VelocityTenant extends TestTenant {
  admin: DashboardUser;
}

export async function velocityTenant(stack: Stack, name: string): Promise<VelocityTenant> {
  const tenant = await createTenant(stack, name);
  return { ...tenant, admin: await dashboardUser(stack, tenant.tenantId, 'admin') };
}

/** Adds a velocity rule as the tenant's admin; its id. */
export async function addVelocityRule(stack: Stack, tenant: VelocityTenant, rule: Record<string, unknown>): Promise<{ id: string }> {
  const added = await call(stack.apiUrl, 'POST', '/auth/velocity-rules', { cookie: tenant.admin.cookie, body: rule });
  assert.equal(added.status, 201, added.text);
  return added.body as { id: string };
}
