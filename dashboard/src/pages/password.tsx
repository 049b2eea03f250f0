import { useEffect, useState } from 'preact/hooks';
import { api } from '../api';
import { Field, PageTitle } from '../components/bits';
import { Notice } from '../components/state';

/** The signed-in user changes their own password; their other sessions end, this one stays. */
export function PasswordPage() {
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [repeat, setRepeat] = useState('');
  const [busy, setBusy] = useState(false);
  const [notice, setNotice] = useState<{ kind: 'success' | 'error'; text: string } | null>(null);

  useEffect(() => {
    document.title = 'Password · NUBAN ledger';
  }, []);

  async function submit(event: Event): Promise<void> {
    event.preventDefault();
    if (next !== repeat) {
      setNotice({ kind: 'error', text: 'The new password and its repetition differ.' });
      return;
    }
    setBusy(true);
    setNotice(null);
    try {
      const { sessionsEnded } = await api<{ sessionsEnded: number }>('POST', '/auth/password', {
        body: { currentPassword: current, newPassword: next },
      });
      setNotice({ kind: 'success', text: `Password changed. ${sessionsEnded} other session(s) ended.` });
      setCurrent('');
      setNext('');
      setRepeat('');
    } catch (failure) {
      setNotice({ kind: 'error', text: (failure as Error).message });
    }
    setBusy(false);
  }

  return (
    <>
      <PageTitle title="Password" />
      <p class="muted">Choose a password of at least 12 characters that only you know. Your other sessions end; this one stays.</p>
      <Notice notice={notice} />
      <form class="form" onSubmit={submit}>
        <Field label="Current password">
          <input
            type="password"
            name="current-password"
            autocomplete="current-password"
            required
            value={current}
            onInput={(event) => setCurrent(event.currentTarget.value)}
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
        <Field label="New password again">
          <input
            type="password"
            name="repeat-password"
            autocomplete="new-password"
            required
            minLength={12}
            value={repeat}
            onInput={(event) => setRepeat(event.currentTarget.value)}
          />
        </Field>
        <button type="submit" class="button primary" disabled={busy}>
          {busy ? 'Changing…' : 'Change password'}
        </button>
      </form>
    </>
  );
}
