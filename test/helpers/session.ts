import { randomUUID } from 'node:crypto';
import { call } from './http';
import type { Stack } from './stack';

/** A dashboard user of the tenant, logged in: returns the `session=…` cookie. */
export async function dashboardSession(stack: Stack, tenantId: string): Promise<string> {
  const email = `ops+${randomUUID()}@example.com`;
  const password = 'a long dashboard password';
  await stack.services.auth.createUser(tenantId, email, password);
  const login = await call(stack.apiUrl, 'POST', '/auth/login', { body: { email, password } });
  if (login.status !== 200) throw new Error(`login failed: ${login.status}`);
  return (login.headers.get('set-cookie') ?? '').split(';')[0]!;
}
