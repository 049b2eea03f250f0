import { useLocation, useRoute } from 'preact-iso';
import { api } from '../api';
import type { Delivery } from '../api-types';
import { Badge, PageTitle, Summary, TableWrap } from '../components/bits';
import { ConfirmButton } from '../components/confirm';
import { Empty, Loaded, useResource } from '../components/state';
import { when } from '../format';
import { useCan } from '../session';

export function DeliveryPage() {
  const { params } = useRoute();
  const id = params.id ?? '';
  const delivery = useResource(() => api<Delivery>('GET', `/auth/webhooks/deliveries/${encodeURIComponent(id)}`), [id], 3_000);
  const canReplay = useCan('operate');
  const location = useLocation();
  return (
    <>
      <PageTitle title="Webhook delivery">
        {canReplay && delivery.data?.Status === 'dead_letter' ? (
          <ConfirmButton
            label="Replay"
            title="Replay this dead letter?"
            description={
              <p>The same event (same X-Event-Id) is delivered again to the account's current callback URL, as a new delivery.</p>
            }
            action={async () => {
              const replay = await api<{ ID: string }>('POST', `/auth/webhooks/deliveries/${encodeURIComponent(id)}/replay`);
              location.route(`/dashboard/webhooks/deliveries/${replay.ID}`);
            }}
          />
        ) : null}
      </PageTitle>
      <p>
        <a href="/dashboard/webhooks">← All deliveries</a>
      </p>
      <Loaded resource={delivery} what="the delivery">
        {(data) => (
          <>
            <Summary
              items={[
                [
                  'Status',
                  <>
                    <Badge status={data.Status} /> <span data-testid="delivery-status">{data.Status}</span>
                  </>,
                ],
                ['Event id (X-Event-Id)', <span class="mono">{data.EventID}</span>],
                ['Callback URL', <span class="mono">{data.CallbackURL}</span>],
                ['Attempts', String(data.AttemptCount)],
                ['Next retry', when(data.NextRetryAt)],
                ['Delivered', when(data.DeliveredAt)],
                ['Event received', when(data.CreatedAt)],
                ['Replay of', data.ReplayOf ? <a href={`/dashboard/webhooks/deliveries/${data.ReplayOf}`}>the original delivery</a> : '—'],
              ]}
            />
            <section aria-labelledby="attempts-title">
              <h2 id="attempts-title">Attempt log</h2>
              {data.Attempts.length === 0 ? (
                <Empty>
                  <p>No attempt yet.</p>
                </Empty>
              ) : (
                <TableWrap label="Attempts">
                  <table>
                    <thead>
                      <tr>
                        <th scope="col">#</th>
                        <th scope="col">At</th>
                        <th scope="col">Answer</th>
                        <th scope="col">Error</th>
                        <th scope="col" class="num">
                          Took
                        </th>
                      </tr>
                    </thead>
                    <tbody>
                      {data.Attempts.map((attempt) => (
                        <tr key={attempt.Attempt}>
                          <td>{attempt.Attempt}</td>
                          <td>{when(attempt.AttemptedAt)}</td>
                          <td>{attempt.StatusCode ? `HTTP ${attempt.StatusCode}` : '—'}</td>
                          <td>{attempt.Error ?? ''}</td>
                          <td class="num">{attempt.DurationMs} ms</td>
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
