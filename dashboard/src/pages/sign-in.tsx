import { useEffect, useState } from 'preact/hooks';
import { api, ApiError } from '../api';
import { Field } from '../components/bits';
import { SignedOutCard } from '../components/signed-out-card';

interface TenantChoice {
  id: string;
  name: string;
}

/** The sign-in answer: a session, or the tenants whose user has this email and password. */
type LoginAnswer = { chooseTenant?: TenantChoice[] };

export function SignInPage(props: { message?: string; onSignedIn: () => void }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [tenants, setTenants] = useState<TenantChoice[] | null>(null);
  const [tenantId, setTenantId] = useState('');

  useEffect(() => {
    document.title = 'Sign in · NUBAN ledger';
  }, []);

  async function submit(event: Event): Promise<void> {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const answer = await api<LoginAnswer>('POST', '/auth/login', {
        body: { email, password, ...(tenantId ? { tenantId } : {}) },
        expectUnauthorized: true,
      });
      if (answer.chooseTenant) {
        setTenants(answer.chooseTenant);
        setTenantId(answer.chooseTenant[0]?.id ?? '');
        setBusy(false);
        return;
      }
      props.onSignedIn();
    } catch (failure) {
      setError(
        failure instanceof ApiError && failure.status === 401 ? 'That email and password do not match a user.' : (failure as Error).message,
      );
      setBusy(false);
    }
  }

  return (
    <SignedOutCard title="Sign in" lead="The operations dashboard of your tenant.">
      {props.message ? (
        <p class="notice notice-info" role="status">
          {props.message}
        </p>
      ) : null}
      <form onSubmit={submit}>
        <Field label="Email">
          <input
            type="email"
            name="email"
            autocomplete="username"
            required
            value={email}
            onInput={(event) => {
              setEmail(event.currentTarget.value);
              setTenants(null);
              setTenantId('');
            }}
          />
        </Field>
        <Field label="Password">
          <input
            type="password"
            name="password"
            autocomplete="current-password"
            required
            value={password}
            onInput={(event) => setPassword(event.currentTarget.value)}
          />
        </Field>
        {tenants ? (
          <Field label="Organisation" hint="This email and password belong to users of more than one organisation: choose one.">
            <select name="tenant" value={tenantId} onChange={(event) => setTenantId(event.currentTarget.value)}>
              {tenants.map((tenant) => (
                <option key={tenant.id} value={tenant.id}>
                  {tenant.name}
                </option>
              ))}
            </select>
          </Field>
        ) : null}
        {error ? (
          <p class="notice notice-error" role="alert">
            {error}
          </p>
        ) : null}
        <button type="submit" class="button primary wide" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
      <p class="muted small">Your admin adds users on the Users page; the first admin of a tenant is made with the CLI.</p>
      <p class="muted small">
        Have a reset token from your admin? <a href="/dashboard/reset-password">Set a new password</a>.
      </p>
    </SignedOutCard>
  );
}
