import type { ComponentChildren } from 'preact';
import { Field } from './bits';

interface MoneyDraft {
  amount: string;
  narration: string;
}

/**
 * The first step of moving money out of an account (a settle, a transfer): the amount, the destination's fields
 * (`children`), an optional narration, and a button that looks the destination up; nothing is sent before the
 * operator has seen the destination named.
 */
export function MoneyForm(props: {
  draft: MoneyDraft;
  update(change: Partial<MoneyDraft>): void;
  onLookUp(event: Event): Promise<void>;
  lookupError: string | null;
  looking: boolean;
  lookUpLabel: string;
  children: ComponentChildren;
}) {
  const { draft, update } = props;
  return (
    <form class="form" onSubmit={props.onLookUp}>
      <Field label="Amount (naira)">
        <input
          name="amount"
          inputMode="decimal"
          required
          value={draft.amount}
          onInput={(event) => update({ amount: event.currentTarget.value.trim() })}
        />
      </Field>
      {props.children}
      <Field label="Narration (optional)">
        <input
          name="narration"
          maxLength={100}
          value={draft.narration}
          onInput={(event) => update({ narration: event.currentTarget.value })}
        />
      </Field>
      {props.lookupError ? (
        <p class="notice notice-error" role="alert">
          {props.lookupError}
        </p>
      ) : null}
      <button type="submit" class="button secondary" disabled={props.looking}>
        {props.looking ? 'Looking up…' : props.lookUpLabel}
      </button>
    </form>
  );
}
