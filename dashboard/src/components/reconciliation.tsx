// What the reconciliation pages share: how a run is described, the table of findings, and the decision
// an operator takes on an open finding the tenant may decide (a note).
import { useState } from 'preact/hooks';
import { api } from '../api';
import type { ReconciliationException, ReconciliationRun } from '../api-types';
import { naira, when, words } from '../format';
import { useCan } from '../session';
import { Badge, Field, TableWrap } from './bits';
import { ConfirmDialog } from './confirm';

export const FINAL_RUN_STATUSES = new Set(['succeeded', 'failed']);

const TRIGGERS: Record<ReconciliationRun['Trigger'], string> = {
  schedule: 'The hourly schedule',
  cli: 'The platform operator (CLI)',
  tenant: 'An API key',
  operator: 'A dashboard user',
};

/** Who or what started a run. */
export function startedBy(run: ReconciliationRun): string {
  return run.Trigger === 'operator' && run.RequestedBy ? run.RequestedBy : TRIGGERS[run.Trigger];
}

export function runWindow(run: ReconciliationRun): string {
  return `${when(run.WindowFrom)} – ${when(run.WindowTo)}`;
}

export function RunStatus(props: { run: ReconciliationRun }) {
  const { run } = props;
  return (
    <span class="badges">
      <Badge status={run.Status} />
      {run.Outcome ? (
        <Badge
          status={run.Outcome}
          label={run.Outcome === 'exceptions' ? 'exceptions found' : run.Outcome === 'alert' ? 'alert' : run.Outcome}
        />
      ) : null}
    </span>
  );
}

export function ReconciliationTabs(props: { current: 'runs' | 'exceptions' }) {
  return (
    <nav class="tabs" aria-label="Reconciliation views">
      <a href="/dashboard/reconciliation" aria-current={props.current === 'runs' ? 'page' : undefined}>
        Runs
      </a>
      <a href="/dashboard/reconciliation/exceptions" aria-current={props.current === 'exceptions' ? 'page' : undefined}>
        Exceptions
      </a>
    </nav>
  );
}

const RESOLUTIONS: Record<NonNullable<ReconciliationException['Resolution']>, string> = {
  noted: 'resolved with a note',
  compensated: 'compensating debit posted',
  no_longer_found: 'no longer found by a later run',
};

export function resolutionText(finding: ReconciliationException): string | null {
  return finding.Resolution ? RESOLUTIONS[finding.Resolution] : null;
}

/** Who closed a finding: a dashboard user, the platform operator at the CLI, or a run that no longer met it. */
export function resolvedBy(finding: ReconciliationException): string {
  if (finding.ResolvedBy) return finding.ResolvedBy;
  if (finding.ResolvedVia === 'cli') return 'the platform operator (CLI)';
  if (finding.ResolvedVia === 'reconciliation') return 'reconciliation';
  return '—';
}

/** A detail value as read: amounts as naira, times in Lagos time, the rest as it is. */
export function detailValue(name: string, value: unknown): string {
  if (typeof value === 'string' && /^-?\d+\.\d{2}$/.test(value) && /amount|fee|balance|settlements|misdirected|unexplained/i.test(name))
    return naira(value);
  if (typeof value === 'string' && /time/i.test(name) && !Number.isNaN(Date.parse(value))) return when(value);
  if (value === null || value === undefined) return '—';
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

/** The details in reading order: the provider's side, then the ledger's, then the rest. */
export function orderedDetails(details: Record<string, unknown>): Array<[string, unknown]> {
  const rank = (name: string) => (name.startsWith('provider') ? 0 : name.startsWith('ledger') ? 1 : 2);
  return Object.entries(details).sort(([a], [b]) => rank(a) - rank(b));
}

/** One line of what each side shows ("provider: ₦2,010.00 REFUND · ledger: ₦2,010.00 confirmed"); the exception's page has every detail. */
function sidesLine(details: Record<string, unknown>): string {
  const text = (value: unknown) => (typeof value === 'string' && value !== '' ? value : null);
  const sides: string[] = [];
  const side = (label: string, amount: unknown, status: unknown) => {
    const shown = [text(amount) ? naira(text(amount)) : null, text(status)].filter(Boolean);
    if (shown.length) sides.push(`${label}: ${shown.join(' ')}`);
  };
  side('provider', details.providerAmount, details.providerStatus);
  side('ledger', details.ledgerAmount, details.ledgerStatus);
  side('settlement', details.settlementAmount ?? details.amount, details.settlementStatus);
  if (sides.length) return sides.join(' · ');
  return orderedDetails(details)
    .map(([name, value]) => `${words(name)}: ${detailValue(name, value)}`)
    .join(' · ');
}

function ResolveDialog(props: { finding: ReconciliationException; onDone: (text: string) => void; onClose: () => void }) {
  const { finding } = props;
  const [note, setNote] = useState('');
  return (
    <ConfirmDialog
      title="Resolve this exception?"
      confirmLabel="Resolve"
      onConfirm={async () => {
        if (!note.trim()) throw new Error('Write a note: it is kept with the exception and in the audit log.');
        await api('POST', `/auth/reconciliation/exceptions/${encodeURIComponent(finding.ID)}/resolve`, { body: { note: note.trim() } });
        props.onDone('Exception resolved with your note.');
      }}
      onClose={props.onClose}
    >
      <p>
        <strong>{finding.Title}</strong>
      </p>
      <p>
        Nothing in the ledger changes. Your note, your name and the time are kept with the exception; later runs that meet the same record
        acknowledge it instead of reporting it again.
      </p>
      <Field label="Note">
        <textarea name="note" rows={3} maxLength={1000} required value={note} onInput={(event) => setNote(event.currentTarget.value)} />
      </Field>
    </ConfirmDialog>
  );
}

/**
 * Resolve an open finding with a note; operators and admins only. A finding where money left the
 * platform's float without a debit is the platform operator's to decide: shown, never acted on here.
 */
export function ExceptionActions(props: { finding: ReconciliationException; onDone: (text: string) => void }) {
  const canAct = useCan('operate');
  const [deciding, setDeciding] = useState(false);
  const { finding } = props;
  if (!canAct || finding.Status !== 'open') return null;
  if (finding.PlatformDecides) return <span class="muted small">Decided by the platform operator</span>;
  return (
    <span class="row-actions">
      <button type="button" class="button secondary small" onClick={() => setDeciding(true)}>
        Resolve…
      </button>
      {deciding ? <ResolveDialog finding={finding} onDone={props.onDone} onClose={() => setDeciding(false)} /> : null}
    </span>
  );
}

export function ExceptionTable(props: { exceptions: ReconciliationException[]; label: string; onDone: (text: string) => void }) {
  const canAct = useCan('operate');
  return (
    <TableWrap label={props.label}>
      <table>
        <thead>
          <tr>
            <th scope="col">Found</th>
            <th scope="col">Exception</th>
            <th scope="col">Account and reference</th>
            <th scope="col">Status</th>
            {canAct ? <th scope="col">Action</th> : null}
          </tr>
        </thead>
        <tbody>
          {props.exceptions.map((finding) => (
            <tr key={finding.ID} data-exception={finding.ID}>
              <td>{when(finding.CreatedAt)}</td>
              <td class="exception-cell">
                <Badge status={finding.Severity} /> <a href={`/dashboard/reconciliation/exceptions/${finding.ID}`}>{finding.Title}</a>
                <span class="muted small block">{sidesLine(finding.Details)}</span>
                {finding.Occurrences > 1 ? <span class="muted small block">met by {finding.Occurrences} runs</span> : null}
              </td>
              <td class="reference-cell">
                {finding.AccountRef ? (
                  <a href={`/dashboard/accounts/${encodeURIComponent(finding.AccountRef)}`}>{finding.AccountRef}</a>
                ) : (
                  '—'
                )}
                <span class="mono small block">
                  {finding.MerchantTxRef ? (
                    <a href={`/dashboard/settlements/${encodeURIComponent(finding.MerchantTxRef)}`}>{finding.MerchantTxRef}</a>
                  ) : (
                    (finding.ProviderTxnID ?? finding.Subject)
                  )}
                </span>
              </td>
              <td class="status-cell">
                <Badge status={finding.Status} />
                {finding.Resolution ? (
                  <span class="small block">
                    {resolutionText(finding)} by {resolvedBy(finding)}, {when(finding.ResolvedAt)}
                  </span>
                ) : null}
                {finding.ResolutionNote && finding.Resolution !== 'no_longer_found' ? (
                  <span class="small block note">“{finding.ResolutionNote}”</span>
                ) : null}
              </td>
              {canAct ? (
                <td>
                  <ExceptionActions finding={finding} onDone={props.onDone} />
                </td>
              ) : null}
            </tr>
          ))}
        </tbody>
      </table>
    </TableWrap>
  );
}
