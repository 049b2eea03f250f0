import type { RunningSystem } from '../helpers/processes';
import { call } from '../helpers/http';

export interface E2eTenant {
  tenantId: string;
  apiKey: string;
}

/** A tenant made the way an operator would: through the CLI. */
export async function cliTenant(sys: RunningSystem, name = 'E2E Tenant'): Promise<E2eTenant> {
  return JSON.parse(await sys.cli('tenant:create', '--name', name, '--json')) as E2eTenant;
}

export async function provision(
  sys: RunningSystem,
  apiKey: string,
  body: Record<string, unknown> = {},
): Promise<{ AccountRef: string; ID: string }> {
  const response = await call(sys.apiUrl, 'POST', '/v1/accounts', {
    apiKey,
    body: { externalRef: `e2e-${Date.now()}-${Math.random()}`, name: 'Ada Obi', ...body },
  });
  if (response.status !== 201) throw new Error(`provisioning failed: ${response.status} ${response.text}`);
  return response.body;
}

export async function statementLines(
  sys: RunningSystem,
  apiKey: string,
  accountRef: string,
): Promise<Array<{ entry: Record<string, string>; runningBalance: string }>> {
  return (await call(sys.apiUrl, 'GET', `/v1/accounts/${accountRef}/statement?limit=200`, { apiKey })).body.lines;
}
