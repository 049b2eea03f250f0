import type { ComponentChildren } from 'preact';
import { useRoute } from 'preact-iso';
import { useEffect, useState } from 'preact/hooks';
import { api, query } from '../api';
import type { ReconciliationRunDetail } from '../api-types';
import { PageTitle, Pager, Summary, TableWrap, useCursorPages } from '../components/bits';
import { ExceptionTable, FINAL_RUN_STATUSES, RunStatus, runWindow, startedBy } from '../components/reconciliation';
import { Empty, ErrorBox, Loaded, Notice, useResource } from '../components/state';
import { day, naira, when } from '../format';

/** A summary line only when there is something to say. */
function optional(term: string, value: ComponentChildren): Array<[string, ComponentChildren]> {
  return value === null || value === undefined ? [] : [[term, value]];
}

function DayDifferences(props: { days: ReconciliationRunDetail['dayTotalDifferences'] }) {
  return (
    <TableWrap label="Days whose totals differ">
      <table>
        <thead>
          <tr>
            <th scope="col">Day</th>
            <th scope="col">Account</th>
            <th scope="col" class="num">
              Provider: payments
            </th>
            <th scope="col" class="num">
              Provider: gross
            </th>
            <th scope="col" class="num">
              Provider: fees
            </th>
            <th scope="col" class="num">
              Ledger: payments
            </th>
            <th scope="col" class="num">
              Ledger: gross
            </th>
            <th scope="col" class="num">
              Ledger: fees
            </th>
          </tr>
        </thead>
        <tbody>
          {props.days.map((row) => (
            <tr key={`${row.Day}-${row.AccountRef}`}>
              <td>{day(row.Day)}</td>
              <td>
                <a href={`/dashboard/accounts/${encodeURIComponent(row.AccountRef)}`}>{row.AccountRef}</a>
              </td>
              <td class="num">{row.ProviderCount}</td>
              <td class="num">{naira(row.ProviderGross)}</td>
              <td class="num">{naira(row.ProviderFee)}</td>
              <td class="num">{row.LedgerCount}</td>
              <td class="num">{naira(row.LedgerGross)}</td>
              <td class="num">{naira(row.LedgerFee)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableWrap>
  );
}

export function ReconciliationRunPage() {
  const { params } = useRoute();
  const id = params.id ?? '';
  const pages = useCursorPages([id]);
  // Followed every 2 seconds until it finishes.
  const [live, setLive] = useState(true);
  const detail = useResource(
    () => api<ReconciliationRunDetail>('GET', `/auth/reconciliation/runs/${encodeURIComponent(id)}${query({ after: pages.cursor })}`),
    [id, pages.cursor],
    live ? 2_000 : undefined,
  );
  const [notice, setNotice] = useState<{ kind: 'success' | 'error'; text: string } | null>(null);
  const finished = detail.data ? FINAL_RUN_STATUSES.has(detail.data.run.Status) : false;
  useEffect(() => {
    if (finished) setLive(false);
  }, [finished]);

  const decided = (text: string) => {
    setNotice({ kind: 'success', text });
    detail.reload();
  };

  return (
    <>
      <PageTitle title="Reconciliation run" />
      {detail.status === 'error' && !detail.data ? (
        <ErrorBox
          message={detail.error === 'reconciliation run not found' ? 'Reconciliation run not found.' : detail.error}
          onRetry={detail.reload}
        />
      ) : (
        <Loaded resource={detail} what="the run">
          {({ run, exceptions, pagination, dayTotalDifferences, workflow }) => (
            <>
              <p class="settlement-status">
                Status:{' '}
                <span data-testid="run-status">
                  <RunStatus run={run} />
                </span>
                {finished ? null : <span class="muted small"> — updating every 2 seconds</span>}
              </p>
              <div class="cards">
                <div class="card">
                  <span class="card-label">Provider records read</span>
                  <span class="card-value">{run.ProviderTransactions}</span>
                </div>
                <div class="card">
                  <span class="card-label">Matched</span>
                  <span class="card-value" data-testid="run-matched">
                    {run.Matched}
                  </span>
                </div>
                <div class="card">
                  <span class="card-label">Repaired</span>
                  <span class="card-value" data-testid="run-repaired">
                    {run.Repaired}
                  </span>
                </div>
                <div class="card">
                  <span class="card-label">Exceptions reported</span>
                  <span class={`card-value${run.Alerts ? ' bad' : ''}`} data-testid="run-reported">
                    {run.Reported}
                  </span>
                </div>
              </div>
              <Summary
                items={[
                  ['Period', runWindow(run)],
                  ['Started by', run.ParentRunID ? `${startedBy(run)} (your share of a run over the whole platform)` : startedBy(run)],
                  ['Asked', when(run.CreatedAt)],
                  ['Started', when(run.StartedAt)],
                  ['Finished', when(run.FinishedAt)],
                  ['Alerts among them', String(run.Alerts)],
                  ['Still in flight (left for the next run)', String(run.InFlight)],
                  ['Looked up one by one', String(run.Lookups)],
                  ['Account days compared', run.DaysCompared === null ? '—' : `${run.DaysCompared} (${run.DaysDiffering ?? 0} differ)`],
                  ['Run id', <span class="mono">{run.ID}</span>],
                  ...optional('Why it failed', run.Error),
                  ...optional('Workflow id', workflow ? <span class="mono">{workflow.workflowId}</span> : null),
                ]}
              />
              <section aria-labelledby="findings-title">
                <h2 id="findings-title">What it found</h2>
                <Notice notice={notice} />
                {exceptions.length === 0 ? (
                  <Empty>
                    <p>
                      {run.Status === 'succeeded'
                        ? 'Nothing to repair or report: every record matched.'
                        : run.Status === 'failed'
                          ? 'The run failed before it could report anything.'
                          : 'Nothing found yet.'}
                    </p>
                  </Empty>
                ) : (
                  <ExceptionTable exceptions={exceptions} label="What the run found" onDone={decided} />
                )}
                <Pager
                  page={pages.page}
                  nextCursor={pagination.nextCursor}
                  onNext={pages.next}
                  onPrevious={pages.previous}
                  label="Pages of what the run found"
                />
              </section>
              {run.Status === 'succeeded' ? (
                <section aria-labelledby="days-title">
                  <h2 id="days-title">Daily totals</h2>
                  <p class="muted small">The provider's successful payments against the ledger's, per account and Lagos day.</p>
                  {dayTotalDifferences.length === 0 ? (
                    <Empty>
                      <p>Every account's daily totals agree.</p>
                    </Empty>
                  ) : (
                    <DayDifferences days={dayTotalDifferences} />
                  )}
                </section>
              ) : null}
            </>
          )}
        </Loaded>
      )}
    </>
  );
}
