import { useLocation } from 'preact-iso';
import { useState } from 'preact/hooks';
import { api, query } from '../api';
import type { ReconciliationRunAccepted, ReconciliationRuns } from '../api-types';
import { Field, PageTitle, Pager, TableWrap, useCursorPages } from '../components/bits';
import { ConfirmDialog } from '../components/confirm';
import { ReconciliationTabs, RunStatus, runWindow, startedBy } from '../components/reconciliation';
import { Empty, Loaded, useResource } from '../components/state';
import { day, endOfLagosDay, startOfLagosDay, when } from '../format';
import { useCan, useSession } from '../session';

/** The window asked for, as the API takes it: Lagos days, the last one included; a day not over yet ends now. */
function requestedWindow(period: { from: string; to: string }): { from?: string; to?: string } {
  const to = period.to ? endOfLagosDay(period.to) : undefined;
  return {
    ...(period.from ? { from: new Date(startOfLagosDay(period.from)).toISOString() } : {}),
    ...(to && Date.parse(to) < Date.now() ? { to } : {}),
  };
}

function StartRun() {
  const location = useLocation();
  const { tenant } = useSession();
  const [period, setPeriod] = useState({ from: '', to: '' });
  const [confirming, setConfirming] = useState(false);
  const [error, setError] = useState<string | null>(null);

  function ask(event: Event): void {
    event.preventDefault();
    if (period.from && period.to && period.from > period.to) {
      setError('The first day must not be after the last.');
      return;
    }
    setError(null);
    setConfirming(true);
  }

  const described =
    period.from || period.to
      ? `${period.from ? `from ${day(period.from)}` : 'over the usual look-back window'} ${period.to ? `to the end of ${day(period.to)}` : 'up to now'}`
      : 'over the usual look-back window (the last 48 hours unless configured otherwise), up to now';

  return (
    <section aria-labelledby="start-run-title">
      <h2 id="start-run-title">Check now</h2>
      <form class="toolbar" onSubmit={ask} aria-label="Start a reconciliation run">
        <Field label="First day (optional)">
          <input
            type="date"
            name="from"
            value={period.from}
            onInput={(event) => setPeriod({ ...period, from: event.currentTarget.value })}
          />
        </Field>
        <Field label="Last day (optional, included)">
          <input type="date" name="to" value={period.to} onInput={(event) => setPeriod({ ...period, to: event.currentTarget.value })} />
        </Field>
        <button type="submit" class="button primary">
          Start a run…
        </button>
      </form>
      {error ? (
        <p class="notice notice-error" role="alert">
          {error}
        </p>
      ) : null}
      {confirming ? (
        <ConfirmDialog
          title="Reconcile your accounts now?"
          confirmLabel="Start the run"
          onConfirm={async () => {
            const { run } = await api<ReconciliationRunAccepted>('POST', '/auth/reconciliation/runs', { body: requestedWindow(period) });
            location.route(`/dashboard/reconciliation/runs/${run.ID}`);
          }}
          onClose={() => setConfirming(false)}
        >
          <p>
            Compares every account of {tenant.name} with the provider's records {described}. A payment the provider shows and the ledger
            lacks is credited as its webhook would have been; everything else that differs is reported here as an exception, and nothing
            else changes.
          </p>
          <p class="muted small">One run at a time, and a few an hour: the service also reconciles on its own every hour.</p>
        </ConfirmDialog>
      ) : null}
    </section>
  );
}

export function ReconciliationRunsPage() {
  const canRun = useCan('operate');
  const pages = useCursorPages([]);
  const runs = useResource(
    () => api<ReconciliationRuns>('GET', `/auth/reconciliation/runs${query({ after: pages.cursor })}`),
    [pages.cursor],
    5_000,
  );

  return (
    <>
      <PageTitle title="Reconciliation" />
      <p class="muted">
        Each run reads the provider's own records of your accounts and matches them with the ledger: what a missed or late event left wrong
        is repaired, everything else is reported as an exception for your team. This list refreshes itself.
      </p>
      <ReconciliationTabs current="runs" />
      {canRun ? <StartRun /> : null}
      <Loaded resource={runs} what="reconciliation runs">
        {(data) =>
          data.runs.length === 0 ? (
            <Empty>
              <p>
                No reconciliation runs yet. The service reconciles every hour on its own{canRun ? '; start one above to check now' : ''}.
              </p>
            </Empty>
          ) : (
            <>
              <TableWrap label="Reconciliation runs">
                <table>
                  <thead>
                    <tr>
                      <th scope="col">Asked</th>
                      <th scope="col">Period</th>
                      <th scope="col">Started by</th>
                      <th scope="col">Status</th>
                      <th scope="col" class="num">
                        Provider records
                      </th>
                      <th scope="col" class="num">
                        Matched
                      </th>
                      <th scope="col" class="num">
                        Repaired
                      </th>
                      <th scope="col" class="num">
                        Exceptions
                      </th>
                    </tr>
                  </thead>
                  <tbody>
                    {data.runs.map((run) => (
                      <tr key={run.ID} data-run={run.ID}>
                        <td>
                          <a href={`/dashboard/reconciliation/runs/${run.ID}`}>{when(run.CreatedAt)}</a>
                        </td>
                        <td class="small">{runWindow(run)}</td>
                        <td>{startedBy(run)}</td>
                        <td>
                          <RunStatus run={run} />
                        </td>
                        <td class="num">{run.ProviderTransactions}</td>
                        <td class="num">{run.Matched}</td>
                        <td class="num">{run.Repaired}</td>
                        <td class="num">
                          {run.Reported}
                          {run.Alerts ? (
                            <span class="small block bad-text">
                              {run.Alerts} alert{run.Alerts === 1 ? '' : 's'}
                            </span>
                          ) : null}
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </TableWrap>
              <Pager
                page={pages.page}
                nextCursor={data.pagination.nextCursor}
                onNext={pages.next}
                onPrevious={pages.previous}
                label="Reconciliation run pages"
              />
            </>
          )
        }
      </Loaded>
    </>
  );
}
