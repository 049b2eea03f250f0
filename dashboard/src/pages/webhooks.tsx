import { useLocation } from 'preact-iso';
import { useState } from 'preact/hooks';
import { api, query } from '../api';
import type { DeliveryList, DeliveryListItem, ProcessingErrors, ReplayMany } from '../api-types';
import { Badge, Field, PageTitle, Pager, ShownOnce, TableWrap, useCursorPages } from '../components/bits';
import { ConfirmButton } from '../components/confirm';
import { Empty, Loaded, Notice, useResource } from '../components/state';
import { when } from '../format';
import { useCan } from '../session';

const TABS = [
  { id: 'deliveries', label: 'Deliveries' },
  { id: 'dead-letters', label: 'Dead letters' },
  { id: 'errors', label: 'Processing errors' },
  { id: 'secret', label: 'Signing secret' },
] as const;
type Tab = (typeof TABS)[number]['id'];

type NoticeState = { kind: 'success' | 'error'; text: string } | null;

function DeliveryRows(props: { rows: DeliveryListItem[]; selectable?: { selected: Set<string>; toggle: (id: string) => void } }) {
  return (
    <TableWrap label="Deliveries">
      <table>
        <thead>
          <tr>
            {props.selectable ? <th scope="col">Select</th> : null}
            <th scope="col">Event received</th>
            <th scope="col">Account</th>
            <th scope="col">Callback URL</th>
            <th scope="col">Status</th>
            <th scope="col">Attempts</th>
            <th scope="col">Last error</th>
            <th scope="col">Replay</th>
          </tr>
        </thead>
        <tbody>
          {props.rows.map((row) => (
            <tr key={row.ID}>
              {props.selectable ? (
                <td>
                  <input
                    type="checkbox"
                    aria-label={`Select the delivery of ${when(row.CreatedAt)} to ${row.AccountRef}`}
                    checked={props.selectable.selected.has(row.ID)}
                    onChange={() => props.selectable!.toggle(row.ID)}
                  />
                </td>
              ) : null}
              <td>
                <a href={`/dashboard/webhooks/deliveries/${row.ID}`}>{when(row.CreatedAt)}</a>
                {row.ReplayOf ? <span class="muted small block">replay</span> : null}
              </td>
              <td>{row.AccountRef}</td>
              <td class="mono small">{row.CallbackURL}</td>
              <td>
                <Badge status={row.Status} />
              </td>
              <td>{row.AttemptCount}</td>
              <td class="small">{row.LastError ?? (row.LastStatusCode ? `HTTP ${row.LastStatusCode}` : '')}</td>
              <td>
                {row.LatestReplay ? (
                  <a href={`/dashboard/webhooks/deliveries/${row.LatestReplay.ID}`}>
                    <Badge status={row.LatestReplay.Status} label={`replay ${row.LatestReplay.Status.replace('_', ' ')}`} />
                  </a>
                ) : (
                  '—'
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableWrap>
  );
}

function DeliveriesTab(props: { status: string }) {
  const location = useLocation();
  const pages = useCursorPages([props.status]);
  const deliveries = useResource(
    () => api<DeliveryList>('GET', `/auth/webhooks/deliveries${query({ status: props.status, after: pages.cursor })}`),
    [props.status, pages.cursor],
    5_000,
  );
  return (
    <>
      <div class="toolbar">
        <Field label="Status">
          <select
            value={props.status}
            onChange={(event) => location.route(`/dashboard/webhooks${query({ tab: 'deliveries', status: event.currentTarget.value })}`)}
          >
            <option value="">All</option>
            <option value="pending">pending</option>
            <option value="retrying">retrying</option>
            <option value="succeeded">succeeded</option>
            <option value="dead_letter">dead letter</option>
          </select>
        </Field>
      </div>
      <Loaded resource={deliveries} what="deliveries">
        {(data) =>
          data.deliveries.length === 0 ? (
            <Empty>
              <p>No deliveries{props.status ? ` with status ${props.status}` : ''}. Accounts with a callbackUrl get one per payment.</p>
            </Empty>
          ) : (
            <>
              <DeliveryRows rows={data.deliveries} />
              <Pager
                page={pages.page}
                nextCursor={data.pagination.nextCursor}
                onNext={pages.next}
                onPrevious={pages.previous}
                label="Delivery pages"
              />
            </>
          )
        }
      </Loaded>
    </>
  );
}

function DeadLettersTab(props: { onNotice: (notice: NoticeState) => void }) {
  const canAct = useCan('operate');
  const pages = useCursorPages([]);
  const letters = useResource(
    () => api<DeliveryList>('GET', `/auth/webhooks/deliveries${query({ status: 'dead_letter', after: pages.cursor })}`),
    [pages.cursor],
    3_000,
  );
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const toggle = (id: string) => {
    const next = new Set(selected);
    if (next.has(id)) next.delete(id);
    else next.add(id);
    setSelected(next);
  };

  async function replay(ids: string[]): Promise<void> {
    const { results } = await api<ReplayMany>('POST', '/auth/webhooks/replay', { body: { ids } });
    const failed = results.filter((result) => result.error);
    props.onNotice(
      failed.length
        ? {
            kind: 'error',
            text: `${results.length - failed.length} replayed; ${failed.length} refused: ${failed.map((result) => result.error).join('; ')}`,
          }
        : {
            kind: 'success',
            text: `${results.length} dead letter${results.length === 1 ? '' : 's'} replayed to the account's current callback URL.`,
          },
    );
    setSelected(new Set());
    letters.reload();
  }

  return (
    <>
      <p class="muted">
        Deliveries that used up their attempts. A replay sends the same event (same X-Event-Id) to the account's current callback URL.
      </p>
      <Loaded resource={letters} what="dead letters">
        {(data) =>
          data.deliveries.length === 0 ? (
            <Empty>
              <p>No dead letters.</p>
            </Empty>
          ) : (
            <>
              {canAct ? (
                <div class="toolbar">
                  <ConfirmButton
                    label={`Replay selected (${selected.size})`}
                    title="Replay the selected dead letters?"
                    disabled={selected.size === 0}
                    description={<p>{selected.size} event(s) are delivered again to their account's current callback URL.</p>}
                    action={() => replay([...selected])}
                  />
                  <ConfirmButton
                    label="Replay all on this page"
                    title="Replay every dead letter on this page?"
                    description={
                      <p>{data.deliveries.filter((row) => !row.LatestReplay).length} not yet replayed event(s) are delivered again.</p>
                    }
                    action={() => replay(data.deliveries.filter((row) => !row.LatestReplay).map((row) => row.ID))}
                    disabled={data.deliveries.every((row) => row.LatestReplay)}
                  />
                </div>
              ) : null}
              <DeliveryRows rows={data.deliveries} {...(canAct ? { selectable: { selected, toggle } } : {})} />
              <Pager
                page={pages.page}
                nextCursor={data.pagination.nextCursor}
                onNext={pages.next}
                onPrevious={pages.previous}
                label="Dead letter pages"
              />
            </>
          )
        }
      </Loaded>
    </>
  );
}

function ErrorsTab() {
  const pages = useCursorPages([]);
  const errors = useResource(
    () => api<ProcessingErrors>('GET', `/auth/webhooks/processing-errors${query({ after: pages.cursor })}`),
    [pages.cursor],
  );
  return (
    <>
      <p class="muted">
        Provider payment events that could not be posted (a bad amount, a currency other than NGN…). Nothing was credited for them.
      </p>
      <Loaded resource={errors} what="processing errors">
        {(data) =>
          data.processingErrors.length === 0 ? (
            <Empty>
              <p>No processing errors.</p>
            </Empty>
          ) : (
            <>
              <TableWrap label="Processing errors">
                <table>
                  <thead>
                    <tr>
                      <th scope="col">Received</th>
                      <th scope="col">Provider request id</th>
                      <th scope="col">Account</th>
                      <th scope="col">Error</th>
                    </tr>
                  </thead>
                  <tbody>
                    {data.processingErrors.map((row) => (
                      <tr key={row.ID}>
                        <td>{when(row.ReceivedAt)}</td>
                        <td class="mono small">{row.RequestID ?? '—'}</td>
                        <td>{row.AccountRef ?? '—'}</td>
                        <td>{row.Error}</td>
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
                label="Processing error pages"
              />
            </>
          )
        }
      </Loaded>
    </>
  );
}

function SecretTab(props: { onNotice: (notice: NoticeState) => void }) {
  const isAdmin = useCan('manage_access');
  const status = useResource(() => api<{ configured: boolean }>('GET', '/auth/webhook-secret'), []);
  const [secret, setSecret] = useState<string | null>(null);
  return (
    <>
      <p class="muted">
        With a secret set, every delivery carries <code>X-Service-Signature: t=…,v1=…</code> (HMAC-SHA256 of <code>t.body</code>). The
        secret is shown once, when it is made.
      </p>
      <Loaded resource={status} what="the signing status">
        {(data) => (
          <>
            <p>
              Deliveries are <strong>{data.configured ? 'signed' : 'not signed'}</strong>.
            </p>
            {secret ? <ShownOnce label="New signing secret" value={secret} onDone={() => setSecret(null)} /> : null}
            {isAdmin && !secret ? (
              <div class="actions">
                <ConfirmButton
                  label={data.configured ? 'Rotate the secret' : 'Generate a secret'}
                  title={data.configured ? 'Rotate the signing secret?' : 'Generate a signing secret?'}
                  description={
                    <p>
                      {data.configured
                        ? 'Deliveries from now on are signed with the new secret; update your receiver at once.'
                        : 'Deliveries from now on are signed.'}
                    </p>
                  }
                  action={async () => {
                    const made = await api<{ secret: string }>('POST', '/auth/webhook-secret', { body: {} });
                    setSecret(made.secret);
                    props.onNotice({ kind: 'success', text: 'A new signing secret is in use.' });
                    status.reload();
                  }}
                />
                {data.configured ? (
                  <ConfirmButton
                    danger
                    label="Stop signing"
                    title="Stop signing deliveries?"
                    description={<p>Receivers that check the signature will refuse deliveries from now on.</p>}
                    action={async () => {
                      await api('DELETE', '/auth/webhook-secret');
                      props.onNotice({ kind: 'success', text: 'Deliveries are no longer signed.' });
                      status.reload();
                    }}
                  />
                ) : null}
              </div>
            ) : null}
            {!isAdmin ? <p class="muted small">Only an admin can set the signing secret.</p> : null}
          </>
        )}
      </Loaded>
    </>
  );
}

export function WebhooksPage() {
  const location = useLocation();
  const tab: Tab = TABS.some((candidate) => candidate.id === location.query.tab) ? (location.query.tab as Tab) : 'deliveries';
  const [notice, setNotice] = useState<NoticeState>(null);
  return (
    <>
      <PageTitle title="Webhooks" />
      <nav class="tabs" aria-label="Webhook views">
        {TABS.map((candidate) => (
          <a
            key={candidate.id}
            href={`/dashboard/webhooks?tab=${candidate.id}`}
            aria-current={candidate.id === tab ? 'page' : undefined}
            onClick={() => setNotice(null)}
          >
            {candidate.label}
          </a>
        ))}
      </nav>
      <Notice notice={notice} />
      {tab === 'deliveries' ? <DeliveriesTab status={location.query.status ?? ''} /> : null}
      {tab === 'dead-letters' ? <DeadLettersTab onNotice={setNotice} /> : null}
      {tab === 'errors' ? <ErrorsTab /> : null}
      {tab === 'secret' ? <SecretTab onNotice={setNotice} /> : null}
    </>
  );
}
