import { useState } from 'preact/hooks';
import { api } from '../api';
import type { DashboardAccount, FreezeReason, FreezeSide, LienReason, OpenLiens } from '../api-types';
import { Field, TableWrap } from './bits';
import { ConfirmButton } from './confirm';
import { Loaded, Notice, useResource } from './state';
import { naira, when } from '../format';

type NoticeState = { kind: 'success' | 'error'; text: string } | null;

const SIDES: Record<FreezeSide, string> = {
  debits: 'Debits: no money leaves',
  credits: 'Credits: money arriving is held',
  both: 'Both',
};

const FREEZE_REASONS: Record<FreezeReason, string> = {
  fraud_review: 'Fraud review',
  regulatory_order: 'Regulatory order',
  dispute: 'Dispute',
  customer_request: 'Customer request',
};

const LIEN_REASONS: Record<LienReason, string> = {
  fraud_review: 'Fraud review',
  regulatory_order: 'Regulatory order',
  dispute: 'Dispute',
  debt_recovery: 'Debt recovery',
};

const message = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * The account's freeze (docs/freezes-and-liens.md): shown to every role; an operator freezes the account for debits,
 * credits or both with a reason, changes or lifts it (audited). `onChange` reloads the account, whose balances move.
 */
export function FreezeSection(props: { accountRef: string; freeze: DashboardAccount['freeze']; canEdit: boolean; onChange: () => void }) {
  const path = `/auth/accounts/${encodeURIComponent(props.accountRef)}/freeze`;
  const { freeze } = props;
  const [editing, setEditing] = useState(false);
  const [frozenFor, setFrozenFor] = useState<FreezeSide>(freeze?.frozenFor ?? 'debits');
  const [reason, setReason] = useState<FreezeReason>(freeze?.reason ?? 'fraud_review');
  const [note, setNote] = useState('');
  const [notice, setNotice] = useState<NoticeState>(null);

  async function save(event: Event): Promise<void> {
    event.preventDefault();
    try {
      const done = await api<{ released: string }>('PUT', path, {
        body: { frozenFor, reason, ...(note.trim() ? { note: note.trim() } : {}) },
      });
      const released = done.released !== '0.00' ? ` ${naira(done.released)} of held credits released.` : '';
      setNotice({ kind: 'success', text: `Account frozen for ${frozenFor}.${released}` });
      setEditing(false);
      setNote('');
      props.onChange();
    } catch (error) {
      setNotice({ kind: 'error', text: message(error) });
    }
  }

  return (
    <section aria-labelledby="freeze-title">
      <h2 id="freeze-title">Freeze</h2>
      <Notice notice={notice} />
      {freeze ? (
        <div class="notice notice-error" data-testid="account-freeze">
          <p>
            <strong>Frozen for {freeze.frozenFor}</strong> ({FREEZE_REASONS[freeze.reason]}) since {when(freeze.frozenAt)}:{' '}
            {freeze.frozenFor === 'credits'
              ? 'money arriving is held until the freeze is lifted.'
              : freeze.frozenFor === 'debits'
                ? 'no money leaves the account; payments still arrive.'
                : 'no money leaves the account, and money arriving is held until the freeze is lifted.'}
          </p>
        </div>
      ) : (
        <p class="muted">Not frozen: money arrives and leaves as usual.</p>
      )}
      {props.canEdit && !editing ? (
        <div class="toolbar">
          <button type="button" class="button secondary" onClick={() => setEditing(true)}>
            {freeze ? 'Change freeze' : 'Freeze account'}
          </button>
          {freeze ? (
            <ConfirmButton
              label="Lift freeze"
              title="Lift the freeze?"
              description={<p>The account pays out again, and the credits the freeze held may be spent.</p>}
              action={async () => {
                const done = await api<{ released: string }>('DELETE', path);
                setNotice({ kind: 'success', text: `Freeze lifted; ${naira(done.released)} of held credits released.` });
                props.onChange();
              }}
            />
          ) : null}
        </div>
      ) : null}
      {editing ? (
        <form class="toolbar" onSubmit={save} aria-label="Freeze">
          <Field label="Frozen for">
            <select name="frozenFor" value={frozenFor} onChange={(event) => setFrozenFor(event.currentTarget.value as FreezeSide)}>
              {Object.entries(SIDES).map(([side, label]) => (
                <option key={side} value={side}>
                  {label}
                </option>
              ))}
            </select>
          </Field>
          <Field label="Reason">
            <select name="freezeReason" value={reason} onChange={(event) => setReason(event.currentTarget.value as FreezeReason)}>
              {Object.entries(FREEZE_REASONS).map(([value, label]) => (
                <option key={value} value={value}>
                  {label}
                </option>
              ))}
            </select>
          </Field>
          <Field label="Note (optional, kept in the audit log)">
            <input name="freezeNote" maxLength={500} value={note} onInput={(event) => setNote(event.currentTarget.value)} />
          </Field>
          <button type="submit" class="button primary">
            {freeze ? 'Save freeze' : 'Freeze'}
          </button>
          <button type="button" class="button secondary" onClick={() => setEditing(false)}>
            Cancel
          </button>
        </form>
      ) : null}
    </section>
  );
}

/**
 * The account's open liens (docs/freezes-and-liens.md): shown to every role; an operator places one (amount, reason,
 * optional expiry) or lifts one (audited). `onChange` reloads the account, whose spendable money moves.
 */
export function LiensSection(props: { accountRef: string; canEdit: boolean; onChange: () => void }) {
  const path = `/auth/accounts/${encodeURIComponent(props.accountRef)}/liens`;
  const liens = useResource(() => api<OpenLiens>('GET', path), [path]);
  const [editing, setEditing] = useState(false);
  const [amount, setAmount] = useState('');
  const [reason, setReason] = useState<LienReason>('fraud_review');
  const [note, setNote] = useState('');
  const [expiresAt, setExpiresAt] = useState('');
  const [notice, setNotice] = useState<NoticeState>(null);

  function changed(): void {
    liens.reload();
    props.onChange();
  }

  async function place(event: Event): Promise<void> {
    event.preventDefault();
    try {
      await api('POST', path, {
        body: {
          amount: amount.trim(),
          reason,
          ...(note.trim() ? { note: note.trim() } : {}),
          // A datetime-local input is the browser's own time; the API takes an instant.
          ...(expiresAt ? { expiresAt: new Date(expiresAt).toISOString() } : {}),
        },
      });
      setNotice({ kind: 'success', text: `Lien of ${naira(amount.trim())} placed.` });
      setEditing(false);
      setAmount('');
      setNote('');
      setExpiresAt('');
      changed();
    } catch (error) {
      setNotice({ kind: 'error', text: message(error) });
    }
  }

  return (
    <section aria-labelledby="liens-title">
      <h2 id="liens-title">Liens</h2>
      <Notice notice={notice} />
      <Loaded resource={liens} what="the liens">
        {(data) =>
          data.liens.length === 0 ? (
            <p class="muted">No lien: nothing is set aside on this account.</p>
          ) : (
            <TableWrap label="Open liens">
              <table data-testid="account-liens">
                <thead>
                  <tr>
                    <th scope="col">Placed</th>
                    <th scope="col">Reason</th>
                    <th scope="col">Expires</th>
                    <th scope="col" class="num">
                      Amount
                    </th>
                    {props.canEdit ? <th scope="col">Action</th> : null}
                  </tr>
                </thead>
                <tbody>
                  {data.liens.map((lien) => (
                    <tr key={lien.lienId}>
                      <td>{when(lien.placedAt)}</td>
                      <td>{LIEN_REASONS[lien.reason]}</td>
                      <td>{lien.expiresAt ? when(lien.expiresAt) : 'When lifted'}</td>
                      <td class="num">{naira(lien.held)}</td>
                      {props.canEdit ? (
                        <td>
                          <ConfirmButton
                            label="Lift"
                            small
                            title="Lift the lien?"
                            description={<p>{`The account may spend ${naira(lien.held)} more.`}</p>}
                            confirmLabel="Lift lien"
                            action={async () => {
                              const done = await api<{ released: string }>('POST', `${path}/${lien.lienId}/lift`);
                              setNotice({ kind: 'success', text: `Lien lifted; ${naira(done.released)} released.` });
                              changed();
                            }}
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
      {props.canEdit && !editing ? (
        <div class="toolbar">
          <button type="button" class="button secondary" onClick={() => setEditing(true)}>
            Place a lien
          </button>
        </div>
      ) : null}
      {editing ? (
        <form class="toolbar" onSubmit={place} aria-label="Lien">
          <Field label="Amount (naira)">
            <input
              name="lienAmount"
              inputMode="decimal"
              required
              value={amount}
              onInput={(event) => setAmount(event.currentTarget.value)}
            />
          </Field>
          <Field label="Reason">
            <select name="lienReason" value={reason} onChange={(event) => setReason(event.currentTarget.value as LienReason)}>
              {Object.entries(LIEN_REASONS).map(([value, label]) => (
                <option key={value} value={value}>
                  {label}
                </option>
              ))}
            </select>
          </Field>
          <Field label="Expires (optional)">
            <input
              name="lienExpiresAt"
              type="datetime-local"
              value={expiresAt}
              onInput={(event) => setExpiresAt(event.currentTarget.value)}
            />
          </Field>
          <Field label="Note (optional, kept in the audit log)">
            <input name="lienNote" maxLength={500} value={note} onInput={(event) => setNote(event.currentTarget.value)} />
          </Field>
          <button type="submit" class="button primary">
            Place lien
          </button>
          <button type="button" class="button secondary" onClick={() => setEditing(false)}>
            Cancel
          </button>
        </form>
      ) : null}
    </section>
  );
}
