import { useState } from 'preact/hooks';
import { api } from '../api';
import type { EventTypeList, WebhookEndpoint, WebhookEndpointList, WebhookEndpointWithSecret } from '../api-types';
import { Badge, Field, PageTitle, ShownOnce, TableWrap } from '../components/bits';
import { ConfirmButton, ConfirmDialog } from '../components/confirm';
import { Empty, Loaded, Notice, useResource } from '../components/state';
import { when } from '../format';
import { useCan } from '../session';

type NoticeState = { kind: 'success' | 'error'; text: string } | null;
type EventTypeOption = EventTypeList['eventTypes'][number];

const ALL = '*';

function describeTypes(types: string[]): string {
  return types.includes(ALL) ? 'every event type' : types.join(', ');
}

/** The subscription: every type (including ones added later), or the types ticked. */
function EventTypePicker(props: { options: EventTypeOption[]; value: string[]; onChange: (value: string[]) => void }) {
  const all = props.value.includes(ALL);
  const toggle = (type: string) =>
    props.onChange(props.value.includes(type) ? props.value.filter((chosen) => chosen !== type) : [...props.value, type]);
  return (
    <fieldset class="checks">
      <legend class="field-label">Event types</legend>
      <label>
        <input type="checkbox" checked={all} onChange={() => props.onChange(all ? [] : [ALL])} /> All event types, including ones added
        later
      </label>
      {props.options.map((option) => (
        <label key={option.type}>
          <input type="checkbox" disabled={all} checked={all || props.value.includes(option.type)} onChange={() => toggle(option.type)} />{' '}
          <span class="mono">{option.type}</span>
          <span class="field-hint block">{option.description}</span>
        </label>
      ))}
    </fieldset>
  );
}

function AddEndpointForm(props: { options: EventTypeOption[]; onCreated: (created: WebhookEndpointWithSecret) => void }) {
  const [url, setUrl] = useState('');
  const [description, setDescription] = useState('');
  const [types, setTypes] = useState<string[]>([ALL]);
  return (
    <form class="form" aria-label="Add a webhook endpoint" onSubmit={(event) => event.preventDefault()}>
      <h2>Add an endpoint</h2>
      <Field label="URL" hint="Where events are POSTed; it must be a public http(s) address.">
        <input type="url" name="url" required value={url} onInput={(event) => setUrl(event.currentTarget.value)} />
      </Field>
      <Field label="Description">
        <input
          type="text"
          name="description"
          maxLength={500}
          value={description}
          onInput={(event) => setDescription(event.currentTarget.value)}
        />
      </Field>
      <EventTypePicker options={props.options} value={types} onChange={setTypes} />
      <div>
        <ConfirmButton
          label="Add endpoint"
          title={`Add ${url || 'this endpoint'}?`}
          disabled={!url || types.length === 0}
          description={
            <p>It receives {describeTypes(types)} from now on, each delivery signed with its own secret, which is shown once.</p>
          }
          action={async () => {
            const created = await api<WebhookEndpointWithSecret>('POST', '/auth/webhook-endpoints', {
              body: { url, description, eventTypes: types },
            });
            setUrl('');
            setDescription('');
            setTypes([ALL]);
            props.onCreated(created);
          }}
        />
      </div>
    </form>
  );
}

function EditEndpointButton(props: { endpoint: WebhookEndpoint; options: EventTypeOption[]; onSaved: () => void }) {
  const [open, setOpen] = useState(false);
  const [description, setDescription] = useState(props.endpoint.Description);
  const [types, setTypes] = useState(props.endpoint.EventTypes);
  return (
    <>
      <button
        type="button"
        class="button secondary small"
        onClick={() => {
          setDescription(props.endpoint.Description);
          setTypes(props.endpoint.EventTypes);
          setOpen(true);
        }}
      >
        Edit
      </button>
      {open ? (
        <ConfirmDialog
          title={`Edit ${props.endpoint.URL}`}
          confirmLabel="Save"
          onClose={() => setOpen(false)}
          onConfirm={async () => {
            await api('PATCH', `/auth/webhook-endpoints/${props.endpoint.ID}`, { body: { description, eventTypes: types } });
            props.onSaved();
          }}
        >
          <div class="form">
            <Field label="Description">
              <input
                type="text"
                name="description"
                maxLength={500}
                value={description}
                onInput={(event) => setDescription(event.currentTarget.value)}
              />
            </Field>
            <EventTypePicker options={props.options} value={types} onChange={setTypes} />
          </div>
        </ConfirmDialog>
      ) : null}
    </>
  );
}

function EndpointStatus(props: { endpoint: WebhookEndpoint }) {
  const { endpoint } = props;
  if (endpoint.Enabled) return <Badge status="active" label="enabled" />;
  return (
    <>
      <Badge status="disabled" />
      {endpoint.DisabledReason ? (
        <span class="small block">
          Disabled automatically{endpoint.Health.FailingSince ? `, failing since ${when(endpoint.Health.FailingSince)}` : ''}:{' '}
          {endpoint.DisabledReason}
        </span>
      ) : null}
    </>
  );
}

function SuccessRate(props: { health: WebhookEndpoint['Health'] }) {
  const { health } = props;
  if (health.SuccessRate === null) return <span class="muted">no deliveries</span>;
  return (
    <>
      {Math.round(health.SuccessRate * 1000) / 10}%
      <span class="muted small block">
        {health.Delivered} delivered, {health.Failed} failed
      </span>
    </>
  );
}

function EndpointActions(props: {
  endpoint: WebhookEndpoint;
  options: EventTypeOption[];
  onNotice: (notice: NoticeState) => void;
  onSecret: (shown: WebhookEndpointWithSecret) => void;
  reload: () => void;
}) {
  const { endpoint } = props;
  const [busy, setBusy] = useState(false);
  const setEnabled = async (enabled: boolean) => {
    await api('PATCH', `/auth/webhook-endpoints/${endpoint.ID}`, { body: { enabled } });
    props.onNotice({ kind: 'success', text: `${endpoint.URL} ${enabled ? 'enabled' : 'disabled'}.` });
    props.reload();
  };
  return (
    <div class="actions">
      <EditEndpointButton
        endpoint={endpoint}
        options={props.options}
        onSaved={() => {
          props.onNotice({ kind: 'success', text: `${endpoint.URL} saved.` });
          props.reload();
        }}
      />
      {endpoint.Enabled ? (
        <ConfirmButton
          small
          label="Disable"
          title={`Disable ${endpoint.URL}?`}
          description={<p>It receives nothing until it is enabled again; events recorded meanwhile can be recovered afterwards.</p>}
          action={() => setEnabled(false)}
        />
      ) : (
        <button
          type="button"
          class="button primary small"
          disabled={busy}
          onClick={() => {
            setBusy(true);
            setEnabled(true)
              .catch((error: Error) => props.onNotice({ kind: 'error', text: error.message }))
              .finally(() => setBusy(false));
          }}
        >
          Enable
        </button>
      )}
      <ConfirmButton
        small
        label="Rotate secret"
        title={`Rotate the signing secret of ${endpoint.URL}?`}
        description={
          <p>
            A new secret is made and shown once. The current one keeps signing beside it for a while, so you can switch your receiver over.
          </p>
        }
        action={async () => {
          props.onSecret(await api<WebhookEndpointWithSecret>('POST', `/auth/webhook-endpoints/${endpoint.ID}/rotate-secret`));
          props.reload();
        }}
      />
      <ConfirmButton
        small
        danger
        label="Delete"
        title={`Delete ${endpoint.URL}?`}
        description={
          <p>
            It receives nothing more, and its deliveries still to be attempted are cancelled (shown as cancelled in the delivery log). This
            cannot be undone.
          </p>
        }
        action={async () => {
          await api('DELETE', `/auth/webhook-endpoints/${endpoint.ID}`);
          props.onNotice({ kind: 'success', text: `${endpoint.URL} deleted.` });
          props.reload();
        }}
      />
    </div>
  );
}

export function WebhookEndpointsPage() {
  const isAdmin = useCan('manage_access');
  const endpoints = useResource(() => api<WebhookEndpointList>('GET', '/auth/webhook-endpoints'), []);
  const catalogue = useResource(() => api<EventTypeList>('GET', '/auth/webhook-event-types'), []);
  const [notice, setNotice] = useState<NoticeState>(null);
  // A secret lives only here, until dismissed or the page is left: the service never shows it again.
  const [secret, setSecret] = useState<{ label: string; value: string } | null>(null);
  const options = catalogue.data?.eventTypes ?? [];

  return (
    <>
      <PageTitle title="Webhook endpoints" />
      <p class="muted">
        Each endpoint receives the events it subscribes to, signed with its own secret (<code>X-Service-Signature: t=…,v1=…</code>). An
        endpoint that fails every delivery for days is disabled automatically; enable it again here.{' '}
        {isAdmin ? null : 'Only an admin can add or change endpoints.'}
      </p>
      <Notice notice={notice} />
      {secret ? <ShownOnce label={secret.label} value={secret.value} onDone={() => setSecret(null)} /> : null}
      <Loaded resource={endpoints} what="webhook endpoints">
        {(data) =>
          data.endpoints.length === 0 ? (
            <Empty>
              <p>No webhook endpoints yet.</p>
            </Empty>
          ) : (
            <TableWrap label="Webhook endpoints">
              <table>
                <thead>
                  <tr>
                    <th scope="col">URL</th>
                    <th scope="col">Event types</th>
                    <th scope="col">Status</th>
                    <th scope="col">Success (7 days)</th>
                    <th scope="col">Last error</th>
                    {isAdmin ? <th scope="col">Actions</th> : null}
                  </tr>
                </thead>
                <tbody>
                  {data.endpoints.map((endpoint) => (
                    <tr key={endpoint.ID} data-endpoint={endpoint.ID}>
                      <td>
                        <span class="mono small">{endpoint.URL}</span>
                        {endpoint.Description ? <span class="muted small block">{endpoint.Description}</span> : null}
                      </td>
                      <td class="small">{endpoint.EventTypes.includes(ALL) ? 'all' : endpoint.EventTypes.join(', ')}</td>
                      <td>
                        <EndpointStatus endpoint={endpoint} />
                      </td>
                      <td>
                        <SuccessRate health={endpoint.Health} />
                      </td>
                      <td class="small">
                        {endpoint.Health.LastError ?? ''}
                        {endpoint.Health.LastSuccessAt ? (
                          <span class="muted block">last success {when(endpoint.Health.LastSuccessAt)}</span>
                        ) : null}
                      </td>
                      {isAdmin ? (
                        <td>
                          <EndpointActions
                            endpoint={endpoint}
                            options={options}
                            onNotice={setNotice}
                            onSecret={(shown) => setSecret({ label: `New signing secret of ${shown.URL}`, value: shown.Secret })}
                            reload={endpoints.reload}
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
      {isAdmin ? (
        <Loaded resource={catalogue} what="event types">
          {(types) => (
            <AddEndpointForm
              options={types.eventTypes}
              onCreated={(created) => {
                setSecret({ label: `Signing secret of ${created.URL}`, value: created.Secret });
                setNotice({ kind: 'success', text: `${created.URL} added.` });
                endpoints.reload();
              }}
            />
          )}
        </Loaded>
      ) : null}
    </>
  );
}
