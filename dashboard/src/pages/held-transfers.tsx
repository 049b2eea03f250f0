import { useState } from 'preact/hooks';
import { api, query } from '../api';
import type { HeldPayout, HeldTransfer, HeldTransferList } from '../api-types';
import { Badge, Pager, Summary, TableWrap, useCursorPages } from '../components/bits';
import { Empty, Loaded, Notice, useResource } from '../components/state';
import { humanize, naira, when } from '../format';
import { useCan, useSession } from '../session';
import { DecisionButton } from './approvals';

/**
 * Transfers between the tenant's accounts its approval policy holds (docs/approvals.md), of the status the page shows:
 * approved or rejected as payouts are, with the same fresh-code flow, never by their maker.
 */
export function HeldTransfersSection(props: { status: HeldPayout['status'] }) {
  const { status } = props;
  const session = useSession();
  const canApprove = useCan('approve_money');
  const pages = useCursorPages([status]);
  const list = useResource(
    () => api<HeldTransferList>('GET', `/auth/transfer-approvals${query({ status, after: pages.cursor })}`),
    [status, pages.cursor],
  );
  const [notice, setNotice] = useState<{ kind: 'success' | 'error'; text: string } | null>(null);

  const approve = (transfer: HeldTransfer) => async () => {
    await api('POST', `/auth/transfer-approvals/${encodeURIComponent(transfer.id)}/approve`);
    setNotice({ kind: 'success', text: `${naira(transfer.amount)} to ${transfer.toAccountRef} approved: it has moved.` });
    list.reload();
  };
  const reject = (transfer: HeldTransfer) => async () => {
    await api('POST', `/auth/transfer-approvals/${encodeURIComponent(transfer.id)}/reject`, { body: {} });
    setNotice({ kind: 'success', text: `${naira(transfer.amount)} to ${transfer.toAccountRef} rejected: its money is released.` });
    list.reload();
  };

  return (
    <section aria-label="Transfers between accounts">
      <h2>Transfers between accounts</h2>
      <Notice notice={notice} />
      <Loaded resource={list} what="the held transfers">
        {(data) =>
          data.transfers.length === 0 ? (
            <Empty>
              <p>
                {status === 'awaiting_approval'
                  ? 'No transfer is waiting for approval.'
                  : `No ${humanize(status).toLowerCase()} transfers.`}
              </p>
            </Empty>
          ) : (
            <>
              <TableWrap label="Held transfers">
                <table>
                  <thead>
                    <tr>
                      <th scope="col">From</th>
                      <th scope="col">To</th>
                      <th scope="col">Amount</th>
                      <th scope="col">Maker</th>
                      <th scope="col">{status === 'awaiting_approval' ? 'Expires' : 'Decided'}</th>
                      <th scope="col">Status</th>
                      {canApprove && status === 'awaiting_approval' ? <th scope="col">Decision</th> : null}
                    </tr>
                  </thead>
                  <tbody>
                    {data.transfers.map((transfer) => {
                      const own = transfer.makerUserId === session.user.id;
                      return (
                        <tr key={transfer.id} data-transfer={transfer.id}>
                          <td>
                            <a href={`/dashboard/accounts/${encodeURIComponent(transfer.fromAccountRef)}`}>{transfer.fromAccountRef}</a>
                          </td>
                          <td>
                            <a href={`/dashboard/accounts/${encodeURIComponent(transfer.toAccountRef)}`}>{transfer.toAccountRef}</a>
                          </td>
                          <td class="num">{naira(transfer.amount)}</td>
                          <td>{transfer.maker}</td>
                          <td>
                            {status === 'awaiting_approval'
                              ? when(transfer.expiresAt)
                              : `${when(transfer.decidedAt)}${transfer.decidedBy ? ` by ${transfer.decidedBy}` : ''}`}
                          </td>
                          <td>
                            <Badge
                              status={
                                transfer.status === 'approved' ? 'success' : transfer.status === 'awaiting_approval' ? 'pending' : 'failed'
                              }
                              label={humanize(transfer.status)}
                            />
                          </td>
                          {canApprove && status === 'awaiting_approval' ? (
                            <td class="row-actions">
                              {own ? (
                                <span class="muted small">Yours: another user approves it</span>
                              ) : (
                                <DecisionButton
                                  label="Approve"
                                  title={`Approve the transfer of ${naira(transfer.amount)}?`}
                                  description={
                                    <Summary
                                      items={[
                                        ['From', transfer.fromAccountRef],
                                        ['To', transfer.toAccountRef],
                                        ['Amount', naira(transfer.amount)],
                                        ['Made by', transfer.maker],
                                      ]}
                                    />
                                  }
                                  action={approve(transfer)}
                                />
                              )}
                              <DecisionButton
                                danger
                                label="Reject"
                                title={`Reject the transfer of ${naira(transfer.amount)}?`}
                                description={<p>Nothing moves; the {naira(transfer.amount)} set aside can be spent again.</p>}
                                action={reject(transfer)}
                              />
                            </td>
                          ) : null}
                        </tr>
                      );
                    })}
                  </tbody>
                </table>
              </TableWrap>
              <Pager
                page={pages.page}
                nextCursor={data.pagination.nextCursor}
                onNext={pages.next}
                onPrevious={pages.previous}
                label="Held transfer pages"
              />
            </>
          )
        }
      </Loaded>
    </section>
  );
}
