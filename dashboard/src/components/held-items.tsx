import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { ApiError, api, query } from '../api';
import type { HeldPayout } from '../api-types';
import { humanize, when } from '../format';
import { useCan, useSession } from '../session';
import { Field, Pager, TableWrap, useCursorPages } from './bits';
import { ConfirmDialog } from './confirm';
import { Empty, Loaded, Notice, useResource } from './state';

/** What every held item (payout, transfer, batch) shows of who made it and where its decision stands. */
interface HeldItem {
  makerUserId: string | null;
  maker: string;
  expiresAt: string;
  decidedAt: string | null;
  decidedBy: string | null;
}

/** A column of a held-items table: its header and each row's cell. */
export interface HeldColumn<Item> {
  header: ComponentChildren;
  cell: (item: Item) => ComponentChildren;
  class?: string;
}

/** A decision's confirmation: the dialog's title and what it says, and the notice once it is done. */
interface DecisionWording {
  title: string;
  description: ComponentChildren;
  done: string;
}

/** The maker's column, then the expiry (awaiting) or the decision (who, when) of the status shown. */
export function makerAndWhenColumns<Item extends HeldItem>(status: HeldPayout['status']): HeldColumn<Item>[] {
  return [
    { header: 'Maker', cell: (item) => item.maker },
    {
      header: status === 'awaiting_approval' ? 'Expires' : 'Decided',
      cell: (item) =>
        status === 'awaiting_approval' ? when(item.expiresAt) : `${when(item.decidedAt)}${item.decidedBy ? ` by ${item.decidedBy}` : ''}`,
    },
  ];
}

/**
 * Held items of one kind and status (docs/approvals.md), as the Approvals page lists them: a page of them from
 * `path` (its approve and reject under `path/{id}`), and, for a user with approve_money while they await approval,
 * the decision on each (never on one they made). `children` stand between the notice of a decision and the list.
 */
export function HeldItems<Item extends HeldItem, List extends { pagination: { nextCursor: string | null } }>(props: {
  status: HeldPayout['status'];
  path: string;
  /** The held items of a page of the list. */
  items: (list: List) => Item[];
  /** The item's id in its approve and reject paths, and its row's key. */
  idOf: (item: Item) => string;
  /** The row's data attributes, by which a test or a script finds it. */
  rowAttributes: (item: Item) => Record<string, string>;
  columns: HeldColumn<Item>[];
  /** Naming the items in the loading message, the empty list, the table and the pager. */
  words: { what: string; empty: string; table: string; pager: string };
  approval: (item: Item) => DecisionWording;
  rejection: (item: Item) => DecisionWording;
  children?: ComponentChildren;
}) {
  const { status, path, idOf } = props;
  const session = useSession();
  const canApprove = useCan('approve_money');
  const pages = useCursorPages([status]);
  const list = useResource(() => api<List>('GET', `${path}${query({ status, after: pages.cursor })}`), [status, pages.cursor]);
  const [notice, setNotice] = useState<{ kind: 'success' | 'error'; text: string } | null>(null);
  const deciding = canApprove && status === 'awaiting_approval';

  const decide = (item: Item, decision: 'approve' | 'reject') => async () => {
    const wording = decision === 'approve' ? props.approval(item) : props.rejection(item);
    await api('POST', `${path}/${encodeURIComponent(idOf(item))}/${decision}`, decision === 'reject' ? { body: {} } : undefined);
    setNotice({ kind: 'success', text: wording.done });
    list.reload();
  };

  return (
    <>
      <Notice notice={notice} />
      {props.children}
      <Loaded resource={list} what={props.words.what}>
        {(data) =>
          props.items(data).length === 0 ? (
            <Empty>
              <p>{props.words.empty}</p>
            </Empty>
          ) : (
            <>
              <TableWrap label={props.words.table}>
                <table>
                  <thead>
                    <tr>
                      {props.columns.map((column, index) => (
                        <th key={index} scope="col">
                          {column.header}
                        </th>
                      ))}
                      {deciding ? <th scope="col">Decision</th> : null}
                    </tr>
                  </thead>
                  <tbody>
                    {props.items(data).map((item) => {
                      const approval = props.approval(item);
                      const rejection = props.rejection(item);
                      return (
                        <tr key={idOf(item)} {...props.rowAttributes(item)}>
                          {props.columns.map((column, index) => (
                            <td key={index} {...(column.class ? { class: column.class } : {})}>
                              {column.cell(item)}
                            </td>
                          ))}
                          {deciding ? (
                            <td class="row-actions">
                              {item.makerUserId === session.user.id ? (
                                <span class="muted small">Yours: another user approves it</span>
                              ) : (
                                <DecisionButton
                                  label="Approve"
                                  title={approval.title}
                                  description={approval.description}
                                  action={decide(item, 'approve')}
                                />
                              )}
                              <DecisionButton
                                danger
                                label="Reject"
                                title={rejection.title}
                                description={rejection.description}
                                action={decide(item, 'reject')}
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
                label={props.words.pager}
              />
            </>
          )
        }
      </Loaded>
    </>
  );
}

/** How a status names the items of a kind when there are none: "No transfer is waiting…", "No rejected transfers.". */
export function noneHeld(status: HeldPayout['status'], awaiting: string, plural: string): string {
  return status === 'awaiting_approval' ? awaiting : `No ${humanize(status).toLowerCase()} ${plural}.`;
}

/**
 * Approve or reject after a confirmation. A user with two-factor sign-in is asked for a code of the last 5 minutes
 * (the service answers `fresh_code_required`): the dialog then asks for one, confirms it as a step-up and decides again.
 */
function DecisionButton(props: {
  label: string;
  title: string;
  danger?: boolean;
  description: ComponentChildren;
  action: () => Promise<void>;
}) {
  const [open, setOpen] = useState(false);
  const [askingCode, setAskingCode] = useState(false);
  const [code, setCode] = useState('');

  async function decide(): Promise<void> {
    if (askingCode) await api('POST', '/auth/two-factor/step-up', { body: { code } });
    try {
      await props.action();
    } catch (failure) {
      if (!(failure instanceof ApiError && failure.code === 'fresh_code_required')) throw failure;
      setAskingCode(true);
      setCode('');
      throw new Error('Give the code your authenticator app shows now to confirm this decision.');
    }
  }

  return (
    <>
      <button type="button" class={`button small ${props.danger ? 'danger' : 'secondary'}`} onClick={() => setOpen(true)}>
        {props.label}
      </button>
      {open ? (
        <ConfirmDialog
          title={props.title}
          confirmLabel={props.label}
          {...(props.danger ? { danger: true } : {})}
          confirmDisabled={askingCode && !/^\d{6}$/.test(code)}
          onConfirm={decide}
          onClose={() => {
            setOpen(false);
            setAskingCode(false);
            setCode('');
          }}
        >
          {props.description}
          {askingCode ? (
            <Field label="Code from the app">
              <input
                name="step-up-code"
                inputMode="numeric"
                autocomplete="one-time-code"
                maxLength={6}
                value={code}
                onInput={(event) => setCode(event.currentTarget.value)}
              />
            </Field>
          ) : null}
        </ConfirmDialog>
      ) : null}
    </>
  );
}
