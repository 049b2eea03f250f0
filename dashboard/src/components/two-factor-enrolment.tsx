import { useEffect, useRef, useState } from 'preact/hooks';
import { api } from '../api';
import type { EnrolmentStarted, RecoveryCodes } from '../api-types';
import { Field } from './bits';

/** The service's SVG QR code, parsed as SVG (never as HTML) and shown as one image. */
function QrCode(props: { svg: string }) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const parsed = new DOMParser().parseFromString(props.svg, 'image/svg+xml').documentElement;
    if (ref.current && parsed.nodeName === 'svg') ref.current.replaceChildren(document.importNode(parsed, true));
  }, [props.svg]);
  return <div ref={ref} class="qr-code" role="img" aria-label="QR code of your authenticator key" />;
}

/** The recovery codes, shown once: kept only here until the user says they are stored. */
function RecoveryCodeList(props: { codes: string[]; onDone: () => void }) {
  return (
    <div class="shown-once" role="region" aria-label="Recovery codes">
      <p>
        <strong>Recovery codes</strong> — store them somewhere safe now: each signs you in once if you lose your phone, and they are shown
        only this once.
      </p>
      <ul class="recovery-codes" data-testid="recovery-codes">
        {props.codes.map((code) => (
          <li key={code}>
            <code>{code}</code>
          </li>
        ))}
      </ul>
      <button type="button" class="button primary small" onClick={props.onDone}>
        I have stored them
      </button>
    </div>
  );
}

/** Setting up an authenticator app: its key as a QR code (and as text), a first code to confirm it, then the recovery codes. */
export function TwoFactorEnrolment(props: { onEnrolled: () => void }) {
  const [started, setStarted] = useState<EnrolmentStarted | null>(null);
  const [code, setCode] = useState('');
  const [recoveryCodes, setRecoveryCodes] = useState<string[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function run(action: () => Promise<void>): Promise<void> {
    setBusy(true);
    setError(null);
    try {
      await action();
    } catch (failure) {
      setError((failure as Error).message);
    }
    setBusy(false);
  }

  const start = () => run(async () => setStarted(await api<EnrolmentStarted>('POST', '/auth/two-factor/enrolment')));
  const confirm = (event: Event) => {
    event.preventDefault();
    return run(async () => {
      const answer = await api<RecoveryCodes>('POST', '/auth/two-factor/enrolment/confirm', { body: { code } });
      setRecoveryCodes(answer.recoveryCodes);
    });
  };

  if (recoveryCodes) return <RecoveryCodeList codes={recoveryCodes} onDone={props.onEnrolled} />;
  return (
    <div class="enrolment">
      {started ? (
        <>
          <p>Scan this code with an authenticator app (Google Authenticator, 1Password, Authy…), then give the 6 digits it shows.</p>
          <QrCode svg={started.qrCodeSvg} />
          <p class="muted small">
            Cannot scan? Type this key into the app: <code data-testid="totp-secret">{started.secret}</code>
          </p>
          <form class="form" onSubmit={confirm}>
            <Field label="Code from the app">
              <input
                name="totp-code"
                inputMode="numeric"
                autocomplete="one-time-code"
                pattern="[0-9]{6}"
                maxLength={6}
                required
                value={code}
                onInput={(event) => setCode(event.currentTarget.value)}
              />
            </Field>
            <button type="submit" class="button primary" disabled={busy}>
              {busy ? 'Checking…' : 'Turn on two-factor sign-in'}
            </button>
          </form>
        </>
      ) : (
        <button type="button" class="button primary" onClick={start} disabled={busy}>
          Set up an authenticator app
        </button>
      )}
      {error ? (
        <p class="notice notice-error" role="alert">
          {error}
        </p>
      ) : null}
    </div>
  );
}
