import { useEffect, useState } from 'preact/hooks';
import { api, ApiError } from '../api';
import { Field } from '../components/bits';
import { SignedOutCard } from '../components/signed-out-card';
import { TwoFactorEnrolment } from '../components/two-factor-enrolment';

function SignOutLink(props: { onSignedOut: () => void }) {
  return (
    <p class="muted small">
      Not you?{' '}
      <button
        type="button"
        class="button link small"
        onClick={() =>
          api('POST', '/auth/logout')
            .catch(() => undefined)
            .finally(props.onSignedOut)
        }
      >
        Sign out
      </button>
    </p>
  );
}

/** After the password, a user with two-factor sign-in gives the code of their authenticator app, or a recovery code. */
export function SecondFactorPage(props: { onSignedIn: () => void; onSignedOut: () => void }) {
  const [recovery, setRecovery] = useState(false);
  const [value, setValue] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    document.title = 'Two-factor sign-in · NUBAN ledger';
  }, []);

  async function submit(event: Event): Promise<void> {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await api('POST', '/auth/two-factor/sign-in', {
        body: recovery ? { recoveryCode: value } : { code: value },
        expectUnauthorized: true,
      });
      props.onSignedIn();
    } catch (failure) {
      setError(failure instanceof ApiError ? failure.message : 'The code could not be checked.');
      setBusy(false);
    }
  }

  return (
    <SignedOutCard title="Two-factor sign-in" lead="Your password is right. Now give the code your authenticator app shows.">
      <form onSubmit={submit}>
        {recovery ? (
          <Field label="Recovery code" hint="One of the codes you stored when you set up the app; each works once.">
            <input
              name="recovery-code"
              autocomplete="off"
              required
              value={value}
              onInput={(event) => setValue(event.currentTarget.value)}
            />
          </Field>
        ) : (
          <Field label="Code from the app">
            <input
              name="totp-code"
              inputMode="numeric"
              autocomplete="one-time-code"
              pattern="[0-9]{6}"
              maxLength={6}
              required
              value={value}
              onInput={(event) => setValue(event.currentTarget.value)}
            />
          </Field>
        )}
        {error ? (
          <p class="notice notice-error" role="alert">
            {error}
          </p>
        ) : null}
        <button type="submit" class="button primary wide" disabled={busy}>
          {busy ? 'Checking…' : 'Sign in'}
        </button>
      </form>
      <p class="muted small">
        <button
          type="button"
          class="button link small"
          onClick={() => {
            setRecovery(!recovery);
            setValue('');
            setError(null);
          }}
        >
          {recovery ? 'Use the code from the app' : 'Lost your phone? Use a recovery code'}
        </button>
      </p>
      <SignOutLink onSignedOut={props.onSignedOut} />
    </SignedOutCard>
  );
}

/** The tenant requires two-factor sign-in of this user's role: nothing else until it is set up. */
export function MustEnrolPage(props: { onEnrolled: () => void; onSignedOut: () => void }) {
  useEffect(() => {
    document.title = 'Set up two-factor sign-in · NUBAN ledger';
  }, []);
  return (
    <SignedOutCard
      title="Set up two-factor sign-in"
      lead="Your organisation requires two-factor sign-in for your role. Set up an authenticator app to continue."
    >
      <TwoFactorEnrolment onEnrolled={props.onEnrolled} />
      <SignOutLink onSignedOut={props.onSignedOut} />
    </SignedOutCard>
  );
}
