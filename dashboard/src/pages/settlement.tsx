import { useRoute } from 'preact-iso';
import { api } from '../api';
import type { SettlementDetail } from '../api-types';
import { Badge, PageTitle, Summary, TableWrap } from '../components/bits';
import { MetadataList } from '../components/metadata';
import { Empty, Loaded, useResource } from '../components/state';
import { naira, when } from '../format';

const FINAL = new Set(['success', 'failed', 'refunded']);

export function SettlementPage() {
  const { params } = useRoute();
  const ref = params.merchantTxRef ?? '';
  const settlement = useResource(() => api<SettlementDetail>('GET', `/auth/settlements/${encodeURIComponent(ref)}`), [ref], 2_000);
  const live = settlement.data && !FINAL.has(settlement.data.transfer.status);

  return (
    <>
      <PageTitle title={`Settlement ${ref}`} />
      <Loaded resource={settlement} what="the settlement">
        {({ transfer, attempts, statusHistory, workflow }) => (
          <>
            <p class="settlement-status">
              Status:{' '}
              <span data-testid="settlement-status">
                <Badge status={transfer.status} />
              </span>
              {live ? <span class="muted small"> — updating every 2 seconds</span> : null}
            </p>
            <Summary
              items={[
                ['Amount', naira(transfer.amount)],
                ['From account', <a href={`/dashboard/accounts/${encodeURIComponent(transfer.accountRef)}`}>{transfer.accountRef}</a>],
                ['To', `${transfer.accountName ?? '(name not confirmed yet)'} · ${transfer.accountNumber} · bank ${transfer.bankCode}`],
                ['Narration', transfer.narration || '—'],
                ['Provider fee', transfer.providerFee ? naira(transfer.providerFee) : '—'],
                ['Provider transfer id', <span class="mono">{transfer.providerTransferId ?? '—'}</span>],
                ['Failure reason', transfer.failureReason ?? '—'],
                ['Metadata', <MetadataList metadata={transfer.metadata} />],
                ['Created', when(transfer.createdAt)],
                ['Last change', when(transfer.updatedAt)],
                ['Workflow id', <span class="mono">{workflow.workflowId}</span>],
              ]}
            />
            <section aria-labelledby="history-title">
              <h2 id="history-title">Status history</h2>
              <ol class="timeline">
                {statusHistory.map((change, index) => (
                  <li key={`${change.status}-${index}`}>
                    <Badge status={change.status} /> <span>{when(change.at)}</span>
                  </li>
                ))}
              </ol>
            </section>
            <section aria-labelledby="attempts-title">
              <h2 id="attempts-title">Attempts at the provider</h2>
              {attempts.length === 0 ? (
                <Empty>
                  <p>
                    {FINAL.has(transfer.status)
                      ? 'No transfer was submitted to the provider.'
                      : 'No attempt yet: the workflow checks the destination first.'}
                  </p>
                </Empty>
              ) : (
                <TableWrap label="Attempts">
                  <table>
                    <thead>
                      <tr>
                        <th scope="col">#</th>
                        <th scope="col">Provider reference</th>
                        <th scope="col">Outcome</th>
                        <th scope="col">Provider transfer id</th>
                        <th scope="col">Detail</th>
                        <th scope="col">Started</th>
                        <th scope="col">Last update</th>
                      </tr>
                    </thead>
                    <tbody>
                      {attempts.map((attempt) => (
                        <tr key={attempt.attempt}>
                          <td>{attempt.attempt}</td>
                          <td class="mono">{attempt.providerRef}</td>
                          <td>
                            <Badge status={attempt.outcome} />
                          </td>
                          <td class="mono">{attempt.providerTransferId ?? '—'}</td>
                          <td>{attempt.detail ?? ''}</td>
                          <td>{when(attempt.startedAt)}</td>
                          <td>{when(attempt.updatedAt)}</td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </TableWrap>
              )}
            </section>
          </>
        )}
      </Loaded>
    </>
  );
}
