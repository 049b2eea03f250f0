import { randomUUID } from 'node:crypto';
import type { UserRole } from '../../src/http/roles';
import { call } from './http';
import type { Stack } from './stack';

export interface DashboardUser {
  userId: string;
  email: string;
  password: string;
  /** `session=…`, ready for a Cookie header. */
  cookie: string;
}

export async function signIn(stack: Pick<Stack, 'apiUrl'>, email: string, password: string): Promise<string> {
  const login = await call(stack.apiUrl, 'POST', '/auth/login', { body: { email, password } });
  if (login.status !== 200) throw new Error(`login failed: ${login.status} ${login.text}`);
  return (login.headers.get('set-cookie') ?? '').split(';')[0]!;
}

/** A dashboard user of the tenant with `role` (admin, like the CLI's), signed in. */
export async function dashboardUser(stack: Stack, tenantId: string, role: UserRole = 'admin'): Promise<DashboardUser> {
  const email = `ops+${randomUUID()}@example.com`;
  const password = 'a long dashboard password';
  const { userId } = await stack.services.auth.createUser(tenantId, email, password, role);
  return { userId, email, password, cookie: await signIn(stack, email, password) };
}

/** A dashboard user of the tenant, logged in: returns the `session=…` cookie. */
export async function dashboardSession(stack: Stack, tenantId: string, role: UserRole = 'admin'): Promise<string> {
  return (await dashboardUser(stack, tenantId, role)).cookie;
}
