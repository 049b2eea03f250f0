import { useState } from 'preact/hooks';
import { api } from '../api';
import type { ApiKey, ApiKeys, ApiKeyScopeList, CreatedApiKey } from '../api-types';
import { Badge, Field, PageTitle, ShownOnce, TableWrap } from '../components/bits';
import { ConfirmButton } from '../components/confirm';
import { Empty, ErrorBox, Loaded, Notice, useResource } from '../components/state';
import { when } from '../format';
import { useCan } from '../session';

type NoticeState = { kind: 'success' | 'error'; text: string } | null;
type ScopeOption = ApiKeyScopeList['scopes'][number];

const ALL = '*';
const HOUR_MS = 3_600_000;
/** How long a rotated key's replaced secret keeps working, as offered (the API allows up to 7 days). */
const OVERLAPS = [
  { label: 'Stop it at once', ms: 0 },
  { label: '1 hour', ms: HOUR_MS },
  { label: '24 hours', ms: 24 * HOUR_MS },
  { label: '7 days', ms: 7 * 24 * HOUR_MS },
];

function describeScopes(scopes: string[]): string {
  return scopes.includes(ALL) ? 'every scope' : scopes.join(', ');
}

/** What the key may do: read only until more is ticked; "every scope" includes scopes added later. */
function ScopePicker(props: { options: ScopeOption[]; value: string[]; onChange: (value: string[]) => void }) {
  const all = props.value.includes(ALL);
  const toggle = (scope: string) =>
    props.onChange(props.value.includes(scope) ? props.value.filter((chosen) => chosen !== scope) : [...props.value, scope]);
  return (
    <fieldset class="checks">
      <legend class="field-label">Scopes</legend>
      {props.options.map((option) => (
        <label key={option.scope}>
          <input type="checkbox" disabled={all} checked={all || props.value.includes(option.scope)} onChange={() => toggle(option.scope)} />{' '}
          <span class="mono">{option.scope}</span>
          <span class="field-hint block">{option.description}</span>
        </label>
      ))}
      <label>
        <input type="checkbox" checked={all} onChange={() => props.onChange(all ? ['read'] : [ALL])} /> Every scope, including ones added
        later
      </label>
    </fieldset>
  );
}

/** Addresses and CIDR ranges, one a line or separated by commas; none: any address. */
function parseSources(text: string): string[] {
  return text
    .split(/[\s,]+/)
    .map((entry) => entry.trim())
    .filter(Boolean);
}

function CreateKeyForm(props: { options: ScopeOption[]; onCreated: (created: CreatedApiKey) => void }) {
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<string[]>(['read']);
  const [sources, setSources] = useState('');
  const [expires, setExpires] = useState('');
  const allowedSources = parseSources(sources);
  return (
    <form class="form" aria-label="Create an API key" onSubmit={(event) => event.preventDefault()}>
      <h2>Create an API key</h2>
      <Field label="Name" hint="What uses it, e.g. Payouts service.">
        <input type="text" name="name" required maxLength={100} value={name} onInput={(event) => setName(event.currentTarget.value)} />
      </Field>
      <ScopePicker options={props.options} value={scopes} onChange={setScopes} />
      <Field label="Allowed addresses" hint="IP addresses or CIDR ranges, one a line; leave empty to allow any address.">
        <textarea name="allowedSources" rows={2} value={sources} onInput={(event) => setSources(event.currentTarget.value)} />
      </Field>
      <Field label="Expires" hint="Leave empty for a key that does not expire.">
        <input type="datetime-local" name="expiresAt" value={expires} onInput={(event) => setExpires(event.currentTarget.value)} />
      </Field>
      <div>
        <ConfirmButton
          label="Create API key"
          title={`Create ${name || 'this key'}?`}
          disabled={!name.trim() || scopes.length === 0}
          description={
            <p>
              A key for the /v1 API of this tenant with {describeScopes(scopes)}
              {allowedSources.length ? `, usable from ${allowedSources.join(', ')} only` : ''}
              {expires ? `, until ${when(new Date(expires).toISOString())}` : ''}. It is shown once; store it in your secrets manager.
            </p>
          }
          action={async () => {
            const created = await api<CreatedApiKey>('POST', '/auth/api-keys', {
              body: {
                name,
                scopes,
                ...(allowedSources.length ? { allowedSources } : {}),
                ...(expires ? { expiresAt: new Date(expires).toISOString() } : {}),
              },
            });
            setName('');
            setScopes(['read']);
            setSources('');
            setExpires('');
            props.onCreated(created);
          }}
        />
      </div>
    </form>
  );
}

function RotateButton(props: { apiKey: ApiKey; onRotated: (rotated: CreatedApiKey) => void }) {
  const [overlapMs, setOverlapMs] = useState(24 * HOUR_MS);
  return (
    <ConfirmButton
      small
      label="Rotate"
      title={`Rotate ${props.apiKey.Name}?`}
      description={
        <div class="form">
          <p>A new secret is issued and shown once. The current secret keeps working until the end of the overlap, then stops.</p>
          <Field label="Current secret keeps working for">
            <select name="overlap" value={String(overlapMs)} onChange={(event) => setOverlapMs(Number(event.currentTarget.value))}>
              {OVERLAPS.map((overlap) => (
                <option key={overlap.ms} value={String(overlap.ms)}>
                  {overlap.label}
                </option>
              ))}
            </select>
          </Field>
        </div>
      }
      action={async () => {
        props.onRotated(
          await api<CreatedApiKey>('POST', `/auth/api-keys/${props.apiKey.ID}/rotate`, {
            body: { replacedSecretValidUntil: new Date(Date.now() + overlapMs).toISOString() },
          }),
        );
      }}
    />
  );
}

function KeyStatus(props: { apiKey: ApiKey }) {
  const { apiKey } = props;
  if (apiKey.RevokedAt) return <Badge status="revoked" label={`revoked ${when(apiKey.RevokedAt)}`} />;
  if (apiKey.ExpiresAt && Date.parse(apiKey.ExpiresAt) <= Date.now())
    return <Badge status="expired" label={`expired ${when(apiKey.ExpiresAt)}`} />;
  return (
    <>
      <Badge status="active" />
      {apiKey.ExpiresAt ? <span class="small block">expires {when(apiKey.ExpiresAt)}</span> : null}
      {apiKey.ReplacedSecretValidUntil && Date.parse(apiKey.ReplacedSecretValidUntil) > Date.now() ? (
        <span class="small block">previous secret works until {when(apiKey.ReplacedSecretValidUntil)}</span>
      ) : null}
    </>
  );
}

export function ApiKeysPage() {
  const isAdmin = useCan('manage_access');
  const keys = useResource(() => (isAdmin ? api<ApiKeys>('GET', '/auth/api-keys') : Promise.resolve({ apiKeys: [] })), [isAdmin]);
  const scopes = useResource(
    () => (isAdmin ? api<ApiKeyScopeList>('GET', '/auth/api-key-scopes') : Promise.resolve({ scopes: [] })),
    [isAdmin],
  );
  const [shown, setShown] = useState<{ label: string; key: string } | null>(null);
  const [notice, setNotice] = useState<NoticeState>(null);

  if (!isAdmin) {
    return (
      <>
        <PageTitle title="API keys" />
        <ErrorBox message="Only an admin manages API keys." />
      </>
    );
  }

  return (
    <>
      <PageTitle title="API keys" />
      {shown ? <ShownOnce label={shown.label} value={shown.key} onDone={() => setShown(null)} /> : null}
      <Notice notice={notice} />
      <Loaded resource={scopes} what="API key scopes">
        {(data) => (
          <CreateKeyForm
            options={data.scopes}
            onCreated={(created) => {
              setShown({ label: `API key ${created.Prefix}…`, key: created.Key });
              setNotice(null);
              keys.reload();
            }}
          />
        )}
      </Loaded>
      <Loaded resource={keys} what="API keys">
        {(data) =>
          data.apiKeys.length === 0 ? (
            <Empty>
              <p>No API keys.</p>
            </Empty>
          ) : (
            <TableWrap label="API keys">
              <table>
                <thead>
                  <tr>
                    <th scope="col">Key</th>
                    <th scope="col">Scopes</th>
                    <th scope="col">Allowed from</th>
                    <th scope="col">Created</th>
                    <th scope="col">Last used</th>
                    <th scope="col">Status</th>
                    <th scope="col">Action</th>
                  </tr>
                </thead>
                <tbody>
                  {data.apiKeys.map((key) => (
                    <tr key={key.ID} data-prefix={key.Prefix}>
                      <td>
                        {key.Name}
                        <span class="mono small block">{key.Prefix}…</span>
                      </td>
                      <td class="mono small">{key.Scopes.includes(ALL) ? 'every scope' : key.Scopes.join(', ')}</td>
                      <td class="mono small">{key.AllowedSources ? key.AllowedSources.join(', ') : 'anywhere'}</td>
                      <td>{when(key.CreatedAt)}</td>
                      <td>{when(key.LastUsedAt)}</td>
                      <td>
                        <KeyStatus apiKey={key} />
                      </td>
                      <td>
                        {key.RevokedAt ? null : (
                          <>
                            <RotateButton
                              apiKey={key}
                              onRotated={(rotated) => {
                                setShown({ label: `New secret of ${rotated.Name} (${rotated.Prefix}…)`, key: rotated.Key });
                                setNotice(null);
                                keys.reload();
                              }}
                            />{' '}
                            <ConfirmButton
                              small
                              danger
                              label="Revoke"
                              title={`Revoke ${key.Name} (${key.Prefix}…)?`}
                              description={
                                <p>Every request with this key is refused from now on, with any secret of it. This cannot be undone.</p>
                              }
                              action={async () => {
                                await api('POST', `/auth/api-keys/${key.ID}/revoke`);
                                setNotice({ kind: 'success', text: `${key.Prefix}… revoked.` });
                                keys.reload();
                              }}
                            />
                          </>
                        )}
                      </td>
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
