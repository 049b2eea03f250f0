import { useState } from 'preact/hooks';
import { api } from '../api';
import type { ApiKeys, CreatedApiKey } from '../api-types';
import { Badge, PageTitle, ShownOnce, TableWrap } from '../components/bits';
import { ConfirmButton } from '../components/confirm';
import { Empty, ErrorBox, Loaded, Notice, useResource } from '../components/state';
import { when } from '../format';
import { useCan } from '../session';

export function ApiKeysPage() {
  const isAdmin = useCan('admin');
  const keys = useResource(() => (isAdmin ? api<ApiKeys>('GET', '/auth/api-keys') : Promise.resolve({ apiKeys: [] })), [isAdmin]);
  const [created, setCreated] = useState<CreatedApiKey | null>(null);
  const [notice, setNotice] = useState<{ kind: 'success' | 'error'; text: string } | null>(null);

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
      <PageTitle title="API keys">
        <ConfirmButton
          label="Create API key"
          title="Create an API key?"
          description={<p>A new key for the /v1 API of this tenant. It is shown once; store it in your secrets manager.</p>}
          action={async () => {
            setCreated(await api<CreatedApiKey>('POST', '/auth/api-keys'));
            setNotice(null);
            keys.reload();
          }}
        />
      </PageTitle>
      {created ? <ShownOnce label={`API key ${created.Prefix}…`} value={created.Key} onDone={() => setCreated(null)} /> : null}
      <Notice notice={notice} />
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
                    <th scope="col">Created</th>
                    <th scope="col">Status</th>
                    <th scope="col">Action</th>
                  </tr>
                </thead>
                <tbody>
                  {data.apiKeys.map((key) => (
                    <tr key={key.ID} data-prefix={key.Prefix}>
                      <td class="mono">{key.Prefix}…</td>
                      <td>{when(key.CreatedAt)}</td>
                      <td>
                        {key.RevokedAt ? <Badge status="revoked" label={`revoked ${when(key.RevokedAt)}`} /> : <Badge status="active" />}
                      </td>
                      <td>
                        {key.RevokedAt ? null : (
                          <ConfirmButton
                            small
                            danger
                            label="Revoke"
                            title={`Revoke ${key.Prefix}…?`}
                            description={<p>Every request with this key is refused from now on. This cannot be undone.</p>}
                            action={async () => {
                              await api('POST', `/auth/api-keys/${key.ID}/revoke`);
                              setNotice({ kind: 'success', text: `${key.Prefix}… revoked.` });
                              keys.reload();
                            }}
                          />
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
