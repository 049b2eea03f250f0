import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { humanize } from '../format';

const TONES: Record<string, string> = {
  confirmed: 'good',
  success: 'good',
  succeeded: 'good',
  approved: 'good',
  active: 'good',
  accepted: 'info',
  provisional: 'warn',
  pending: 'warn',
  pending_review: 'warn',
  processing: 'info',
  retrying: 'warn',
  submitting: 'info',
  ambiguous: 'warn',
  reversed: 'bad',
  failed: 'bad',
  refunded: 'bad',
  rejected: 'bad',
  dead_letter: 'bad',
  suspended: 'bad',
  deficit: 'bad',
  disabled: 'bad',
  open: 'warn',
  resolved: 'good',
  repaired: 'good',
  running: 'info',
  validating: 'info',
  completed: 'good',
  completed_with_failures: 'warn',
  clean: 'good',
  exceptions: 'warn',
  alert: 'bad',
  warning: 'warn',
  info: 'info',
  expired: 'muted',
  revoked: 'muted',
  none: 'muted',
};

/** A status in words (colour only repeats what the text says). */
export function Badge(props: { status: string; label?: string }) {
  return <span class={`badge badge-${TONES[props.status] ?? 'muted'}`}>{props.label ?? humanize(props.status)}</span>;
}

export function PageTitle(props: { title: string; children?: ComponentChildren }) {
  useEffect(() => {
    document.title = `${props.title} · NUBAN ledger`;
  }, [props.title]);
  return (
    <div class="page-title">
      <h1>{props.title}</h1>
      {props.children ? <div class="page-actions">{props.children}</div> : null}
    </div>
  );
}

/** Horizontal scrolling for wide tables on a phone, keeping the page itself from scrolling sideways. */
export function TableWrap(props: { label: string; children: ComponentChildren }) {
  return (
    <div class="table-wrap" role="region" aria-label={props.label} tabIndex={0}>
      {props.children}
    </div>
  );
}

/**
 * Cursor paging: forward with the page's nextCursor, back through the cursors already visited.
 * `cursor` is what to send as `after`.
 */
export function useCursorPages(reset: unknown[]) {
  const [stack, setStack] = useState<string[]>([]);
  const key = JSON.stringify(reset);
  const [forKey, setForKey] = useState(key);
  if (forKey !== key) {
    setForKey(key);
    setStack([]);
  }
  const current = forKey === key ? stack : [];
  return {
    cursor: current[current.length - 1],
    page: current.length + 1,
    next: (cursor: string) => setStack([...current, cursor]),
    previous: () => setStack(current.slice(0, -1)),
    first: () => setStack([]),
  };
}

export function Pager(props: {
  page: number;
  nextCursor: string | null;
  onNext: (cursor: string) => void;
  onPrevious: () => void;
  label?: string;
}) {
  if (props.page === 1 && !props.nextCursor) return null;
  return (
    <nav class="pager" aria-label={props.label ?? 'Pages'}>
      <button type="button" class="button secondary small" onClick={props.onPrevious} disabled={props.page === 1}>
        ← Previous
      </button>
      <span class="pager-page">Page {props.page}</span>
      <button
        type="button"
        class="button secondary small"
        onClick={() => props.nextCursor && props.onNext(props.nextCursor)}
        disabled={!props.nextCursor}
      >
        Next →
      </button>
    </nav>
  );
}

/** A secret the service shows exactly once: kept only in this component until it is dismissed. */
export function ShownOnce(props: { label: string; value: string; onDone: () => void }) {
  const [copied, setCopied] = useState(false);
  return (
    <div class="shown-once" role="region" aria-label={props.label}>
      <p>
        <strong>{props.label}</strong> — copy it now: it is shown only this once and cannot be read again.
      </p>
      <div class="shown-once-value">
        <code data-testid="secret-value">{props.value}</code>
        <button
          type="button"
          class="button secondary small"
          onClick={() =>
            navigator.clipboard?.writeText(props.value).then(
              () => setCopied(true),
              () => setCopied(false),
            )
          }
        >
          {copied ? 'Copied' : 'Copy'}
        </button>
      </div>
      <button type="button" class="button primary small" onClick={props.onDone}>
        I have stored it
      </button>
    </div>
  );
}

export function Field(props: { label: string; children: ComponentChildren; hint?: string }) {
  return (
    <label class="field">
      <span class="field-label">{props.label}</span>
      {props.children}
      {props.hint ? <span class="field-hint">{props.hint}</span> : null}
    </label>
  );
}

export function Summary(props: { items: Array<[string, ComponentChildren]> }) {
  return (
    <dl class="summary">
      {props.items.map(([term, value]) => (
        <div key={term}>
          <dt>{term}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}
