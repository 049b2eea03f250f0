import { useEffect, useState } from 'preact/hooks';
import { api } from '../api';
import type { TwoFactorStatus } from '../api-types';
import { Field, PageTitle } from '../components/bits';
import { ConfirmButton, ConfirmDialog } from '../components/confirm';
import { Loaded, useResource } from '../components/state';
import { TwoFactorEnrolment } from '../components/two-factor-enrolment';
import { useCan } from '../session';

/** A sensitive action: its dialog asks for a code of the authenticator app, given (as a step-up) just before the action runs. */
function WithFreshCode(props: { label: string; title: string; description: string; action: () => Promise<void> }) {
  const [open, setOpen] = useState(false);
  const [code, setCode] = useState('');
  return (
    <>
      <button type="button" class="button danger" onClick={() => setOpen(true)}>
        {props.label}
      </button>
      {open ? (
        <ConfirmDialog
          title={props.title}
          confirmLabel={props.label}
          danger
          confirmDisabled={!/^\d{6}$/.test(code)}
          onConfirm={async () => {
            await api('POST', '/auth/two-factor/step-up', { body: { code } });
            await props.action();
          }}
          onClose={() => {
            setOpen(false);
            setCode('');
          }}
        >
          <p>{props.description}</p>
          <Field label="Code from the app">
            <input
              name="step-up-code"
              inputMode="numeric"
              autocomplete="one-time-code"
              maxLength={6}
              value={code}
              onInput={(event) => setCode(event.currentTarget.value)}
            />
          </Field>
        </ConfirmDialog>
      ) : null}
    </>
  );
}

/** The signed-in user's two-factor sign-in, and (admins) whether the tenant requires it. */
export function TwoFactorPage() {
  const isAdmin = useCan('manage_access');
  const status = useResource(() => api<TwoFactorStatus>('GET', '/auth/two-factor'), []);

  useEffect(() => {
    document.title = 'Two-factor sign-in · NUBAN ledger';
  }, []);

  return (
    <>
      <PageTitle title="Two-factor sign-in" />
      <Loaded resource={status} what="two-factor sign-in">
        {(state) => (
          <>
            <section class="panel">
              <h2>Your sign-in</h2>
              {state.enrolled ? (
                <>
                  <p data-testid="two-factor-state">
                    On: signing in asks for a code of your authenticator app. {state.recoveryCodesLeft} recovery code(s) left.
                  </p>
                  {state.requiredOfYou ? (
                    <p class="muted">Your organisation requires it for your role, so it stays on.</p>
                  ) : (
                    <WithFreshCode
                      label="Turn off"
                      title="Turn two-factor sign-in off"
                      description="Your password alone will sign you in; the app's key and your recovery codes stop working."
                      action={async () => {
                        await api('POST', '/auth/two-factor/disable');
                        status.reload();
                      }}
                    />
                  )}
                </>
              ) : (
                <>
                  <p data-testid="two-factor-state">Off: your password alone signs you in.</p>
                  <TwoFactorEnrolment onEnrolled={status.reload} />
                </>
              )}
            </section>
            {isAdmin ? (
              <section class="panel">
                <h2>Your organisation</h2>
                <p>
                  {state.tenantRequires ? 'Required' : 'Not required'} for the roles that move money or administer (
                  {state.requiredForRoles.join(', ')}).
                </p>
                {state.tenantRequires ? (
                  <WithFreshCode
                    label="Stop requiring it"
                    title="Stop requiring two-factor sign-in"
                    description="Users of these roles may then sign in with a password alone."
                    action={async () => {
                      await api('DELETE', '/auth/two-factor/requirement');
                      status.reload();
                    }}
                  />
                ) : (
                  <ConfirmButton
                    label="Require it"
                    title="Require two-factor sign-in"
                    description={`Users with the role ${state.requiredForRoles.join(' or ')} who have not set up an authenticator app must do so before anything else, you included.`}
                    action={async () => {
                      await api('PUT', '/auth/two-factor/requirement');
                      location.reload();
                    }}
                  />
                )}
              </section>
            ) : null}
          </>
        )}
      </Loaded>
    </>
  );
}
