import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { call } from '../../helpers/http';
import { dashboardUser } from '../../helpers/session';
import { createTenant, startStack, type Stack } from '../../helpers/stack';

describe('sign-in limits cost the one who fails, not the user', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack({ TRUST_PROXY: 'true', RATE_LIMIT_SIGNIN_ADDRESS: '4/15m', RATE_LIMIT_SIGNIN_EMAIL: '3/15m' });
  });
  after(() => stack.close());

  const login = (email: string, password: string, address: string) =>
    call(stack.apiUrl, 'POST', '/auth/login', { body: { email, password }, headers: { 'X-Forwarded-For': address } });

  it("does not lock a user out of their own address when someone else's address fails for their email", async () => {
    const tenant = await createTenant(stack);
    const email = `victim+${randomUUID()}@example.com`;
    await stack.services.auth.createUser(tenant.tenantId, email, 'the victim password');
    for (let attempt = 1; attempt <= 3; attempt += 1)
      assert.equal((await login(email, 'a guess', '203.0.113.50')).status, 401, `attempt ${attempt}`);
    const limited = await login(email, 'a guess', '203.0.113.50');
    assert.equal(limited.status, 429, limited.text);
    assert.match(limited.body.error, /for this account from this address/);

    const victim = await login(email, 'the victim password', '198.51.100.20');
    assert.equal(victim.status, 200, victim.text);
  });

  it("counts a success against the address's budget: signing in to one's own account refunds no guesses", async () => {
    const tenant = await createTenant(stack);
    const own = `attacker+${randomUUID()}@example.com`;
    await stack.services.auth.createUser(tenant.tenantId, own, 'the attacker password');
    const address = '203.0.113.60';
    assert.equal((await login(`someone+${randomUUID()}@example.com`, 'a guess', address)).status, 401);
    assert.equal((await login(own, 'the attacker password', address)).status, 200);
    assert.equal((await login(`someone+${randomUUID()}@example.com`, 'a guess', address)).status, 401);
    assert.equal((await login(own, 'the attacker password', address)).status, 200);
    const limited = await login(`someone+${randomUUID()}@example.com`, 'a guess', address);
    assert.equal(limited.status, 429, limited.text);
    assert.match(limited.body.error, /from this address/);
  });
});

describe('dashboard users are unique per tenant', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });
  after(() => stack.close());

  const login = (body: Record<string, unknown>) => call(stack.apiUrl, 'POST', '/auth/login', { body });

  it("lets two tenants each have a user with one email, so creating one reveals nothing of the other tenant's users", async () => {
    const first = await createTenant(stack, 'First Bank Ops');
    const second = await createTenant(stack, 'Second Bank Ops');
    const firstAdmin = await dashboardUser(stack, first.tenantId);
    const secondAdmin = await dashboardUser(stack, second.tenantId);
    const email = `shared+${randomUUID()}@example.com`;
    const create = (cookie: string) => call(stack.apiUrl, 'POST', '/auth/users', { cookie, body: { email, role: 'viewer' } });

    const atFirst = await create(firstAdmin.cookie);
    assert.equal(atFirst.status, 201, atFirst.text);
    const atSecond = await create(secondAdmin.cookie);
    assert.equal(atSecond.status, 201, atSecond.text);
    const again = await create(firstAdmin.cookie);
    assert.equal(again.status, 409);
    assert.equal(again.body.error, 'this tenant already has a user with that email');

    // Each user signs in with its own password into its own tenant.
    const intoFirst = await login({ email, password: atFirst.body.password });
    assert.equal(intoFirst.status, 200, intoFirst.text);
    assert.equal(intoFirst.body.tenantId, first.tenantId);
    const intoSecond = await login({ email, password: atSecond.body.password });
    assert.equal(intoSecond.status, 200, intoSecond.text);
    assert.equal(intoSecond.body.tenantId, second.tenantId);
  });

  it('asks which tenant when one email and password match users of several, and names the tenants only to a caller who knows the password', async () => {
    const first = await createTenant(stack, 'Choice One');
    const second = await createTenant(stack, 'Choice Two');
    const email = `both+${randomUUID()}@example.com`;
    await stack.services.auth.createUser(first.tenantId, email, 'one password for both');
    await stack.services.auth.createUser(second.tenantId, email, 'one password for both');

    const choice = await login({ email, password: 'one password for both' });
    assert.equal(choice.status, 200, choice.text);
    assert.equal(choice.headers.get('set-cookie'), null, 'no session before a tenant is chosen');
    assert.deepEqual(
      [...choice.body.chooseTenant].sort((a: { name: string }, b: { name: string }) => a.name.localeCompare(b.name)),
      [
        { id: first.tenantId, name: 'Choice One' },
        { id: second.tenantId, name: 'Choice Two' },
      ],
    );

    const chosen = await login({ email, password: 'one password for both', tenantId: second.tenantId });
    assert.equal(chosen.status, 200, chosen.text);
    assert.equal(chosen.body.tenantId, second.tenantId);
    assert.match(chosen.headers.get('set-cookie') ?? '', /^session=/);

    const wrong = await login({ email, password: 'not the password at all' });
    assert.equal(wrong.status, 401);
    assert.equal(wrong.body.chooseTenant, undefined);
    assert.equal((await login({ email, password: 'one password for both', tenantId: randomUUID() })).status, 401);
    assert.equal((await login({ email, password: 'one password for both', tenantId: 'acme' })).status, 400);
  });
});
