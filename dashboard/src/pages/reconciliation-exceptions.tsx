import { useLocation } from 'preact-iso';
import { useState } from 'preact/hooks';
import { FINDINGS } from '../../../src/reconciliation/findings';
import { api, query } from '../api';
import type { ReconciliationExceptions } from '../api-types';
import { Field, PageTitle, Pager, useCursorPages } from '../components/bits';
import { ExceptionTable, ReconciliationTabs } from '../components/reconciliation';
import { Empty, Loaded, Notice, useResource } from '../components/state';
import { humanize } from '../format';

const STATUSES = [
  { value: 'open', label: 'Open' },
  { value: 'resolved', label: 'Resolved' },
  { value: 'repaired', label: 'Repaired automatically' },
  { value: 'all', label: 'All' },
] as const;

const KINDS = Object.keys(FINDINGS);

/** The page's filters live in its URL (`status` defaults to open; `all` asks for every status). */
export function ReconciliationExceptionsPage() {
  const location = useLocation();
  const status = location.query.status ?? 'open';
  const kind = location.query.kind ?? '';
  const pages = useCursorPages([status, kind]);
  const exceptions = useResource(
    () =>
      api<ReconciliationExceptions>(
        'GET',
        `/auth/reconciliation/exceptions${query({ status: status === 'all' ? undefined : status, kind, after: pages.cursor })}`,
      ),
    [status, kind, pages.cursor],
  );
  const [notice, setNotice] = useState<{ kind: 'success' | 'error'; text: string } | null>(null);
  const filter = (next: { status?: string; kind?: string }) => {
    setNotice(null);
    location.route(`/dashboard/reconciliation/exceptions${query({ status, kind, ...next })}`);
  };

  return (
    <>
      <PageTitle title="Reconciliation exceptions" />
      <p class="muted">
        What runs found that the ledger does not repair on its own, newest first. Each open one waits for a decision: resolve it with a
        note. Where money left the platform's float without a debit (a payout the ledger does not count, a confirmed credit the provider
        took back or does not know), the platform operator decides and you see the outcome here.
      </p>
      <ReconciliationTabs current="exceptions" />
      <div class="toolbar">
        <Field label="Status">
          <select name="status" value={status} onChange={(event) => filter({ status: event.currentTarget.value })}>
            {STATUSES.map((option) => (
              <option key={option.value} value={option.value}>
                {option.label}
              </option>
            ))}
          </select>
        </Field>
        <Field label="Kind">
          <select name="kind" value={kind} onChange={(event) => filter({ kind: event.currentTarget.value })}>
            <option value="">All kinds</option>
            {KINDS.map((value) => (
              <option key={value} value={value}>
                {humanize(value)}
              </option>
            ))}
          </select>
        </Field>
      </div>
      <Notice notice={notice} />
      <Loaded resource={exceptions} what="exceptions">
        {(data) =>
          data.exceptions.length === 0 ? (
            <Empty>
              <p>
                {status === 'open' && !kind ? 'No open exceptions: nothing waits for a decision.' : 'No exceptions match these filters.'}
              </p>
            </Empty>
          ) : (
            <>
              <ExceptionTable
                exceptions={data.exceptions}
                label="Reconciliation exceptions"
                onDone={(text) => {
                  setNotice({ kind: 'success', text });
                  exceptions.reload();
                }}
              />
              <Pager
                page={pages.page}
                nextCursor={data.pagination.nextCursor}
                onNext={pages.next}
                onPrevious={pages.previous}
                label="Exception pages"
              />
            </>
          )
        }
      </Loaded>
    </>
  );
}
