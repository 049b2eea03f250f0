import { api } from '../api';
import type { Overview } from '../api-types';
import { PageTitle, TableWrap } from '../components/bits';
import { FlowChart } from '../components/flow-chart';
import { Loaded, useResource } from '../components/state';
import { day, naira, when } from '../format';

function Attention(props: { label: string; count: number; href?: string; note?: string }) {
  return (
    <li class={`attention-item${props.count ? ' attention-due' : ''}`}>
      <span class="attention-count">{props.count}</span>
      <span class="attention-label">{props.href ? <a href={props.href}>{props.label}</a> : props.label}</span>
      {props.note ? <span class="attention-note">{props.note}</span> : null}
    </li>
  );
}

export function OverviewPage() {
  const overview = useResource(() => api<Overview>('GET', '/auth/overview'), []);
  return (
    <>
      <PageTitle title="Overview" />
      <Loaded resource={overview} what="the overview">
        {(data) => (
          <>
            <section aria-labelledby="balances-title">
              <h2 id="balances-title">Balances across {data.balances.accounts} accounts</h2>
              <div class="cards">
                <div class="card">
                  <span class="card-label">Ledger balance</span>
                  <span class="card-value" data-testid="ledger-balance">
                    {naira(data.balances.ledgerBalance)}
                  </span>
                </div>
                <div class="card">
                  <span class="card-label">Available</span>
                  <span class="card-value">{naira(data.balances.availableBalance)}</span>
                </div>
                <div class="card">
                  <span class="card-label">Pending (provisional credits)</span>
                  <span class="card-value">{naira(data.balances.pendingCredits)}</span>
                </div>
              </div>
            </section>
            <section aria-labelledby="attention-title">
              <h2 id="attention-title">Needs attention</h2>
              <ul class="attention">
                <Attention label="KYC reviews waiting" count={data.attention.kycReviews} href="/dashboard/kyc-reviews" />
                <Attention
                  label="Misdirected payments to assign"
                  count={data.attention.misdirectedPayments}
                  href="/dashboard/misdirected"
                />
                <Attention
                  label="Dead letters not replayed"
                  count={data.attention.deadLetters}
                  href="/dashboard/webhooks?tab=dead-letters"
                />
                <Attention
                  label="Failed settlements (30 days)"
                  count={data.attention.failedSettlements}
                  href="/dashboard/settlements?status=failed"
                />
                <Attention label="Accounts in deficit" count={data.attention.accountsInDeficit} href="/dashboard/accounts?deficit=1" />
                <Attention
                  label="Reconciliation exceptions open"
                  count={data.attention.reconciliationExceptions}
                  href="/dashboard/reconciliation/exceptions?status=open"
                />
              </ul>
            </section>
            <section aria-labelledby="flows-title">
              <h2 id="flows-title">Money in and out</h2>
              <div class="cards">
                <div class="card">
                  <span class="card-label">Today in</span>
                  <span class="card-value good">{naira(data.flows.today.inflow)}</span>
                </div>
                <div class="card">
                  <span class="card-label">Today out</span>
                  <span class="card-value bad">{naira(data.flows.today.outflow)}</span>
                </div>
                <div class="card">
                  <span class="card-label">30 days in</span>
                  <span class="card-value good">{naira(data.flows.last30Days.inflow)}</span>
                </div>
                <div class="card">
                  <span class="card-label">30 days out</span>
                  <span class="card-value bad">{naira(data.flows.last30Days.outflow)}</span>
                </div>
              </div>
              <figure class="chart">
                <FlowChart days={data.flows.days} />
                <figcaption>
                  Payments received (net of the provider's fee) and settlements paid, per day ({data.timeZone} time), reversed entries
                  excluded. As of {when(data.asOf)}.
                </figcaption>
              </figure>
              <details>
                <summary>The same figures as a table</summary>
                <TableWrap label="Money in and out per day">
                  <table>
                    <thead>
                      <tr>
                        <th scope="col">Day</th>
                        <th scope="col" class="num">
                          In
                        </th>
                        <th scope="col" class="num">
                          Out
                        </th>
                      </tr>
                    </thead>
                    <tbody>
                      {data.flows.days.map((entry) => (
                        <tr key={entry.day}>
                          <td>{day(entry.day)}</td>
                          <td class="num">{naira(entry.inflow)}</td>
                          <td class="num">{naira(entry.outflow)}</td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </TableWrap>
              </details>
            </section>
          </>
        )}
      </Loaded>
    </>
  );
}
