import { useState } from 'preact/hooks';
import { api } from '../api';
import type { KycReviews } from '../api-types';
import { PageTitle, TableWrap } from '../components/bits';
import { ConfirmButton } from '../components/confirm';
import { Empty, Loaded, Notice, useResource } from '../components/state';
import { when } from '../format';
import { useCan } from '../session';

export function KycReviewsPage() {
  const canAct = useCan('operate');
  const reviews = useResource(() => api<KycReviews>('GET', '/auth/kyc-reviews'), []);
  const [notice, setNotice] = useState<{ kind: 'success' | 'error'; text: string } | null>(null);

  const decide = (id: string, name: string, decision: 'approve' | 'reject') => async () => {
    await api('POST', `/auth/customers/${encodeURIComponent(id)}/kyc/${decision}`);
    setNotice({ kind: 'success', text: `${name}: KYC ${decision === 'approve' ? 'approved' : 'rejected'}.` });
    reviews.reload();
  };

  return (
    <>
      <PageTitle title="KYC reviews" />
      <p class="muted">
        Submissions the identity service could not verify, oldest first. Every decision is recorded with your name and the time.
      </p>
      <Notice notice={notice} />
      <Loaded resource={reviews} what="the review queue">
        {(data) =>
          data.reviews.length === 0 ? (
            <Empty>
              <p>Nothing to review.</p>
            </Empty>
          ) : (
            <TableWrap label="KYC submissions awaiting review">
              <table>
                <thead>
                  <tr>
                    <th scope="col">Customer</th>
                    <th scope="col">externalRef</th>
                    <th scope="col">NIN</th>
                    <th scope="col">Why it waits</th>
                    <th scope="col">Submitted</th>
                    {canAct ? <th scope="col">Decision</th> : null}
                  </tr>
                </thead>
                <tbody>
                  {data.reviews.map((review) => (
                    <tr key={review.ID}>
                      <td>
                        <a href={`/dashboard/customers/${review.ID}`}>{review.Name}</a>
                      </td>
                      <td>{review.ExternalRef}</td>
                      <td class="mono">{review.NINLast4 ? `•••••••${review.NINLast4}` : '—'}</td>
                      <td>{review.KYCReviewReason ?? '—'}</td>
                      <td>{when(review.UpdatedAt)}</td>
                      {canAct ? (
                        <td class="row-actions">
                          <ConfirmButton
                            small
                            label="Approve"
                            title={`Approve ${review.Name}?`}
                            description={<p>{review.Name} moves to KYC tier 2.</p>}
                            action={decide(review.ID, review.Name, 'approve')}
                          />
                          <ConfirmButton
                            small
                            danger
                            label="Reject"
                            title={`Reject ${review.Name}?`}
                            description={<p>{review.Name} stays at tier 1 and may submit again.</p>}
                            action={decide(review.ID, review.Name, 'reject')}
                          />
                        </td>
                      ) : null}
                    </tr>
                  ))}
                </tbody>
              </table>
            </TableWrap>
          )
        }
      </Loaded>
    </>
  );
}
