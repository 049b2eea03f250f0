import { useEffect, useState } from 'preact/hooks';
import { api } from '../api';
import { Field } from '../components/bits';
import { SignedOutCard } from '../components/signed-out-card';

/** Without a session: a user sets a new password with the one-time token their admin gave them. */
export function ResetPasswordPage(props: { onDone: (message: string) => void }) {
  const [token, setToken] = useState('');
  const [next, setNext] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    document.title = 'Set a new password · NUBAN ledger';
  }, []);

  async function submit(event: Event): Promise<void> {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await api('POST', '/auth/password-reset', { body: { token: token.trim(), newPassword: next } });
      history.replaceState(null, '', '/dashboard');
      props.onDone('Your password is set. Sign in with it.');
    } catch (failure) {
      setError((failure as Error).message);
      setBusy(false);
    }
  }

  return (
    <SignedOutCard title="Set a new password" lead="Paste the reset token your admin gave you. It works once.">
      <form onSubmit={submit}>
        <Field label="Reset token">
          <input
            type="text"
            name="token"
            autocomplete="off"
            required
            value={token}
            onInput={(event) => setToken(event.currentTarget.value)}
          />
        </Field>
        <Field label="New password" hint="At least 12 characters.">
          <input
            type="password"
            name="new-password"
            autocomplete="new-password"
            required
            minLength={12}
            value={next}
            onInput={(event) => setNext(event.currentTarget.value)}
          />
        </Field>
        {error ? (
          <p class="notice notice-error" role="alert">
            {error}
          </p>
        ) : null}
        <button type="submit" class="button primary wide" disabled={busy}>
          {busy ? 'Setting…' : 'Set password'}
        </button>
      </form>
      <p class="muted small">
        <a href="/dashboard">Back to sign in</a>
      </p>
    </SignedOutCard>
  );
}
