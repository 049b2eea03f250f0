import { useRoute } from 'preact-iso';
import { useState } from 'preact/hooks';
import { api } from '../api';
import type { CustomerDetail } from '../api-types';
import { Badge, PageTitle, Summary, TableWrap } from '../components/bits';
import { ConfirmButton } from '../components/confirm';
import { AuditTable } from '../components/audit-table';
import { Empty, Loaded, Notice, useResource } from '../components/state';
import { when } from '../format';
import { useCan } from '../session';

export function CustomerPage() {
  const { params } = useRoute();
  const id = params.id ?? '';
  const canAct = useCan('operate');
  const customer = useResource(() => api<CustomerDetail>('GET', `/auth/customers/${encodeURIComponent(id)}`), [id]);
  const [notice, setNotice] = useState<{ kind: 'success' | 'error'; text: string } | null>(null);

  const act = (path: string, done: string) => async () => {
    await api('POST', `/auth/customers/${encodeURIComponent(id)}/${path}`);
    setNotice({ kind: 'success', text: done });
    customer.reload();
  };

  return (
    <>
      <PageTitle title={customer.data ? customer.data.customer.Name : 'Customer'} />
      <Notice notice={notice} />
      <Loaded resource={customer} what="the customer">
        {({ customer: person, accounts, history }) => (
          <>
            <Summary
              items={[
                ['externalRef', person.ExternalRef],
                ['Customer id', <span class="mono">{person.ID}</span>],
                [
                  'KYC',
                  <>
                    <Badge status={person.KYCStatus} /> tier {person.KYCTier}
                  </>,
                ],
                ['Review reason', person.KYCReviewReason ?? '—'],
                ['BVN', person.BVNLast4 ? `•••••••${person.BVNLast4}` : '—'],
                ['NIN', person.NINLast4 ? `•••••••${person.NINLast4}` : '—'],
                ['Status', <Badge status={person.Status} />],
                ['Since', when(person.CreatedAt)],
              ]}
            />
            {canAct ? (
              <div class="actions">
                {person.KYCStatus === 'pending_review' ? (
                  <>
                    <ConfirmButton
                      label="Approve KYC"
                      title="Approve this KYC submission?"
                      description={<p>{person.Name} moves to tier 2. This is recorded with your name and the time.</p>}
                      action={act('kyc/approve', 'KYC approved.')}
                    />
                    <ConfirmButton
                      label="Reject KYC"
                      title="Reject this KYC submission?"
                      danger
                      description={<p>{person.Name} stays at tier 1 and may submit again. This is recorded with your name and the time.</p>}
                      action={act('kyc/reject', 'KYC rejected.')}
                    />
                  </>
                ) : null}
                {person.Status === 'active' ? (
                  <ConfirmButton
                    label="Suspend"
                    title="Suspend this customer?"
                    danger
                    description={<p>{person.Name}'s accounts can no longer settle; money arriving is still recorded.</p>}
                    action={act('suspend', 'Customer suspended.')}
                  />
                ) : (
                  <ConfirmButton
                    label="Reactivate"
                    title="Reactivate this customer?"
                    description={<p>{person.Name}'s accounts can settle again.</p>}
                    action={act('reactivate', 'Customer reactivated.')}
                  />
                )}
              </div>
            ) : null}
            <section aria-labelledby="accounts-title">
              <h2 id="accounts-title">Accounts</h2>
              {accounts.length === 0 ? (
                <Empty>
                  <p>No accounts.</p>
                </Empty>
              ) : (
                <TableWrap label="Accounts of the customer">
                  <table>
                    <thead>
                      <tr>
                        <th scope="col">AccountRef</th>
                        <th scope="col">Account number</th>
                        <th scope="col">Status</th>
                      </tr>
                    </thead>
                    <tbody>
                      {accounts.map((account) => (
                        <tr key={account.ID}>
                          <td>
                            <a href={`/dashboard/accounts/${encodeURIComponent(account.AccountRef)}`}>{account.AccountRef}</a>
                          </td>
                          <td class="mono">{account.BankAccountNumber}</td>
                          <td>
                            <Badge status={account.Status} />
                          </td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </TableWrap>
              )}
            </section>
            <section aria-labelledby="history-title">
              <h2 id="history-title">Operator actions</h2>
              {history.length === 0 ? (
                <Empty>
                  <p>No operator has acted on this customer yet.</p>
                </Empty>
              ) : (
                <AuditTable entries={history} label="Operator actions on the customer" />
              )}
            </section>
          </>
        )}
      </Loaded>
    </>
  );
}
