import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError } from '../api';

/**
 * Every action goes through this: a modal that says what will happen, and runs it only when the
 * operator confirms. The browser's own <dialog> keeps focus inside and closes on Escape.
 */
export function ConfirmDialog(props: {
  title: string;
  children: ComponentChildren;
  confirmLabel: string;
  danger?: boolean;
  /** The action is not ready yet (the dialog's body says what it waits for). */
  confirmDisabled?: boolean;
  onConfirm: () => Promise<void>;
  onClose: () => void;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
    return () => dialog?.close();
  }, []);

  async function confirm(): Promise<void> {
    setBusy(true);
    setError(null);
    try {
      await props.onConfirm();
      props.onClose();
    } catch (failure) {
      setError(failure instanceof ApiError || failure instanceof Error ? failure.message : 'The action failed.');
      setBusy(false);
    }
  }

  return (
    <dialog ref={ref} class="dialog" aria-labelledby="dialog-title" onCancel={(event) => (busy ? event.preventDefault() : props.onClose())}>
      <h2 id="dialog-title">{props.title}</h2>
      <div class="dialog-body">{props.children}</div>
      {error ? (
        <p class="notice notice-error" role="alert">
          {error}
        </p>
      ) : null}
      <div class="dialog-actions">
        <button type="button" class="button secondary" onClick={props.onClose} disabled={busy}>
          Cancel
        </button>
        <button
          type="button"
          class={`button ${props.danger ? 'danger' : 'primary'}`}
          onClick={confirm}
          disabled={busy || props.confirmDisabled === true}
        >
          {busy ? 'Working…' : props.confirmLabel}
        </button>
      </div>
    </dialog>
  );
}

/** A button that opens a ConfirmDialog for one action. */
export function ConfirmButton(props: {
  label: string;
  title: string;
  confirmLabel?: string;
  danger?: boolean;
  small?: boolean;
  disabled?: boolean;
  description: ComponentChildren;
  action: () => Promise<void>;
}) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <button
        type="button"
        class={`button ${props.danger ? 'danger' : 'secondary'}${props.small ? ' small' : ''}`}
        onClick={() => setOpen(true)}
        disabled={props.disabled}
      >
        {props.label}
      </button>
      {open ? (
        <ConfirmDialog
          title={props.title}
          confirmLabel={props.confirmLabel ?? props.label}
          {...(props.danger ? { danger: true } : {})}
          onConfirm={props.action}
          onClose={() => setOpen(false)}
        >
          {props.description}
        </ConfirmDialog>
      ) : null}
    </>
  );
}
