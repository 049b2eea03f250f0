import { useState } from 'preact/hooks';
import { api, query } from '../api';
import type { MisdirectedList, MisdirectedPayment } from '../api-types';
import { Field, PageTitle, Pager, TableWrap, useCursorPages } from '../components/bits';
import { ConfirmDialog } from '../components/confirm';
import { Empty, Loaded, Notice, useResource } from '../components/state';
import { naira, when } from '../format';
import { useCan } from '../session';

function AssignDialog(props: { payment: MisdirectedPayment; onDone: (text: string) => void; onClose: () => void }) {
  const [accountRef, setAccountRef] = useState('');
  const { payment } = props;
  return (
    <ConfirmDialog
      title="Assign this payment to an account"
      confirmLabel="Assign and credit"
      onConfirm={async () => {
        if (!accountRef.trim()) throw new Error('Enter the AccountRef to credit.');
        const assigned = await api<{ AccountRef: string }>('POST', `/auth/misdirected-payments/${encodeURIComponent(payment.ID)}/assign`, {
          body: { accountRef: accountRef.trim() },
        });
        props.onDone(`Payment of ${naira(payment.GrossAmount)} credited to ${assigned.AccountRef}.`);
      }}
      onClose={props.onClose}
    >
      <p>
        {naira(payment.GrossAmount)} from {payment.SenderName ?? 'an unknown sender'}, sent to{' '}
        {payment.AliasAccountRef ?? 'an unknown reference'}. It is credited once, like a payment arriving (provisional until the provider
        confirms it), and the assignment is recorded with your name.
      </p>
      <Field label="AccountRef to credit">
        <input name="accountRef" required value={accountRef} onInput={(event) => setAccountRef(event.currentTarget.value)} />
      </Field>
    </ConfirmDialog>
  );
}

export function MisdirectedPage() {
  const canAct = useCan('operate');
  const pages = useCursorPages([]);
  const payments = useResource(
    () => api<MisdirectedList>('GET', `/auth/misdirected-payments${query({ after: pages.cursor })}`),
    [pages.cursor],
  );
  const [assigning, setAssigning] = useState<MisdirectedPayment | null>(null);
  const [notice, setNotice] = useState<{ kind: 'success' | 'error'; text: string } | null>(null);

  return (
    <>
      <PageTitle title="Misdirected payments" />
      <p class="muted">Signed payments whose reference carried your prefix but matched no account, newest first.</p>
      <Notice notice={notice} />
      <Loaded resource={payments} what="misdirected payments">
        {(data) =>
          data.misdirectedPayments.length === 0 ? (
            <Empty>
              <p>No misdirected payments.</p>
            </Empty>
          ) : (
            <>
              <TableWrap label="Misdirected payments">
                <table>
                  <thead>
                    <tr>
                      <th scope="col">Received</th>
                      <th scope="col">Sent to</th>
                      <th scope="col">Sender</th>
                      <th scope="col" class="num">
                        Amount
                      </th>
                      <th scope="col">Narration</th>
                      <th scope="col">Assigned</th>
                    </tr>
                  </thead>
                  <tbody>
                    {data.misdirectedPayments.map((payment) => (
                      <tr key={payment.ID}>
                        <td>{when(payment.ReceivedAt)}</td>
                        <td class="mono">{payment.AliasAccountRef ?? '—'}</td>
                        <td>{payment.SenderName ?? '—'}</td>
                        <td class="num">{naira(payment.GrossAmount)}</td>
                        <td>{payment.Narration ?? ''}</td>
                        <td>
                          {payment.AssignedAccountRef ? (
                            <>
                              to{' '}
                              <a href={`/dashboard/accounts/${encodeURIComponent(payment.AssignedAccountRef)}`}>
                                {payment.AssignedAccountRef}
                              </a>
                              <span class="muted small block">{when(payment.AssignedAt)}</span>
                            </>
                          ) : canAct ? (
                            <button type="button" class="button secondary small" onClick={() => setAssigning(payment)}>
                              Assign…
                            </button>
                          ) : (
                            'not yet'
                          )}
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
                label="Misdirected payment pages"
              />
            </>
          )
        }
      </Loaded>
      {assigning ? (
        <AssignDialog
          payment={assigning}
          onClose={() => setAssigning(null)}
          onDone={(text) => {
            setNotice({ kind: 'success', text });
            payments.reload();
          }}
        />
      ) : null}
    </>
  );
}
