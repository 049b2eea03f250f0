import type { ComponentChildren } from 'preact';
import { useRoute } from 'preact-iso';
import { useState } from 'preact/hooks';
import { api } from '../api';
import type { ReconciliationExceptionDetail } from '../api-types';
import { Badge, PageTitle, Summary, TableWrap } from '../components/bits';
import {
  detailValue,
  ExceptionActions,
  orderedDetails,
  RunStatus,
  resolutionText,
  resolvedBy,
  runWindow,
  startedBy,
} from '../components/reconciliation';
import { Empty, ErrorBox, Loaded, Notice, useResource } from '../components/state';
import { when, words } from '../format';

function capitalized(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

export function ReconciliationExceptionPage() {
  const { params } = useRoute();
  const id = params.id ?? '';
  const detail = useResource(
    () => api<ReconciliationExceptionDetail>('GET', `/auth/reconciliation/exceptions/${encodeURIComponent(id)}`),
    [id],
  );
  const [notice, setNotice] = useState<{ kind: 'success' | 'error'; text: string } | null>(null);

  return (
    <>
      <PageTitle title="Reconciliation exception" />
      <Notice notice={notice} />
      {detail.status === 'error' && !detail.data ? (
        <ErrorBox
          message={detail.error === 'reconciliation exception not found' ? 'Reconciliation exception not found.' : detail.error}
          onRetry={detail.reload}
        />
      ) : (
        <Loaded resource={detail} what="the exception">
          {({ exception: finding, runs }) => {
            const items: Array<[string, ComponentChildren]> = [
              ['Kind', <span class="mono">{finding.Kind}</span>],
              ['Severity', <Badge status={finding.Severity} />],
              [
                'Status',
                <span data-testid="exception-status">
                  <Badge status={finding.Status} />
                </span>,
              ],
              [
                'Account',
                finding.AccountRef ? (
                  <a href={`/dashboard/accounts/${encodeURIComponent(finding.AccountRef)}`}>{finding.AccountRef}</a>
                ) : (
                  '—'
                ),
              ],
              [
                'Settlement',
                finding.MerchantTxRef ? (
                  <a href={`/dashboard/settlements/${encodeURIComponent(finding.MerchantTxRef)}`}>{finding.MerchantTxRef}</a>
                ) : (
                  '—'
                ),
              ],
              ['Provider transaction', <span class="mono">{finding.ProviderTxnID ?? '—'}</span>],
              ['Ledger entry', <span class="mono">{finding.EntryID ?? '—'}</span>],
              ['First found', when(finding.CreatedAt)],
              ['Met by runs', String(finding.Occurrences)],
              ['Last change', when(finding.UpdatedAt)],
            ];
            if (finding.RepairEntryID)
              items.push([
                finding.Resolution === 'compensated' ? 'Compensating debit' : 'Repair entry',
                <span class="mono">{finding.RepairEntryID}</span>,
              ]);
            if (finding.Resolution) {
              items.push([
                'Resolution',
                `${capitalized(resolutionText(finding) ?? '')} by ${resolvedBy(finding)}, ${when(finding.ResolvedAt)}`,
              ]);
              items.push(['Note', <span data-testid="exception-note">{finding.ResolutionNote ?? '—'}</span>]);
            }
            return (
              <>
                <p>
                  <strong>{finding.Title}</strong>
                </p>
                <ExceptionActions
                  finding={finding}
                  onDone={(text) => {
                    setNotice({ kind: 'success', text });
                    detail.reload();
                  }}
                />
                <Summary items={items} />
                <section aria-labelledby="details-title">
                  <h2 id="details-title">What each side shows</h2>
                  {Object.keys(finding.Details).length === 0 ? (
                    <Empty>
                      <p>No further details.</p>
                    </Empty>
                  ) : (
                    <Summary
                      items={orderedDetails(finding.Details).map(([name, value]) => [capitalized(words(name)), detailValue(name, value)])}
                    />
                  )}
                </section>
                <section aria-labelledby="runs-title">
                  <h2 id="runs-title">Runs that met it</h2>
                  {runs.length === 0 ? (
                    <Empty>
                      <p>No run is on record for it.</p>
                    </Empty>
                  ) : (
                    <TableWrap label="Runs that met it">
                      <table>
                        <thead>
                          <tr>
                            <th scope="col">Asked</th>
                            <th scope="col">Period</th>
                            <th scope="col">Started by</th>
                            <th scope="col">Status</th>
                          </tr>
                        </thead>
                        <tbody>
                          {runs.map((run) => (
                            <tr key={run.ID}>
                              <td>
                                <a href={`/dashboard/reconciliation/runs/${run.ID}`}>{when(run.CreatedAt)}</a>
                              </td>
                              <td class="small">{runWindow(run)}</td>
                              <td>{startedBy(run)}</td>
                              <td>
                                <RunStatus run={run} />
                              </td>
                            </tr>
                          ))}
                        </tbody>
                      </table>
                    </TableWrap>
                  )}
                </section>
              </>
            );
          }}
        </Loaded>
      )}
    </>
  );
}
