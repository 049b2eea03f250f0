import { useLocation } from 'preact-iso';
import { useState } from 'preact/hooks';
import { api, query } from '../api';
import type { AccountSearch, DeficitAccounts } from '../api-types';
import { Badge, Field, PageTitle, Pager, TableWrap, useCursorPages } from '../components/bits';
import { MetadataFilterFields, metadataFilterOf, metadataFilterParams, metadataQuery } from '../components/metadata';
import { Empty, Loaded, useResource } from '../components/state';
import { naira, when } from '../format';

/** The accounts a reversal left below zero (GET /auth/deficit-accounts), longest in deficit first. */
function DeficitAccountsList() {
  const deficits = useResource(() => api<DeficitAccounts>('GET', '/auth/deficit-accounts'), []);
  return (
    <section aria-labelledby="deficit-title">
      <h2 id="deficit-title">Accounts in deficit</h2>
      <p class="muted small">
        A provisional credit was settled and then reversed by the provider, so the ledger balance is below zero. These accounts settle
        nothing until payments bring them back above zero.
      </p>
      <Loaded resource={deficits} what="accounts in deficit">
        {(data) =>
          data.accounts.length === 0 ? (
            <Empty>
              <p>No account is in deficit.</p>
            </Empty>
          ) : (
            <TableWrap label="Accounts in deficit">
              <table>
                <thead>
                  <tr>
                    <th scope="col">AccountRef</th>
                    <th scope="col">Account number</th>
                    <th scope="col">Account name</th>
                    <th scope="col" class="num">
                      Ledger
                    </th>
                    <th scope="col">In deficit since</th>
                  </tr>
                </thead>
                <tbody>
                  {data.accounts.map((account) => (
                    <tr key={account.ID}>
                      <td>
                        <a href={`/dashboard/accounts/${encodeURIComponent(account.AccountRef)}`}>{account.AccountRef}</a>
                      </td>
                      <td class="mono">{account.BankAccountNumber}</td>
                      <td>{account.BankAccountName}</td>
                      <td class="num">{naira(account.LedgerBalance)}</td>
                      <td>{account.DeficitSince ? when(account.DeficitSince) : '—'}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </TableWrap>
          )
        }
      </Loaded>
    </section>
  );
}

export function AccountsPage() {
  const location = useLocation();
  const q = location.query.q ?? '';
  const deficitOnly = location.query.deficit === '1';
  const filter = metadataFilterOf(location.query);
  const [text, setText] = useState(q);
  const [filterDraft, setFilterDraft] = useState(filter);
  const pages = useCursorPages([q, filter.key, filter.value]);
  const accounts = useResource(
    () =>
      deficitOnly
        ? Promise.resolve<AccountSearch | null>(null)
        : api<AccountSearch>('GET', `/auth/accounts${query({ q, after: pages.cursor, ...metadataQuery(filter) })}`),
    [q, filter.key, filter.value, pages.cursor, deficitOnly],
  );
  const filtered = q !== '' || filter.key !== '';

  function search(event: Event): void {
    event.preventDefault();
    location.route(`/dashboard/accounts${query({ q: text.trim(), ...metadataFilterParams(filterDraft) })}`);
  }

  return (
    <>
      <PageTitle title="Accounts" />
      <form class="toolbar" role="search" onSubmit={search}>
        <Field label="Search accounts" hint="AccountRef, account number, externalRef, or part of the customer's name">
          <input type="search" name="q" value={text} onInput={(event) => setText(event.currentTarget.value)} />
        </Field>
        <MetadataFilterFields filter={filterDraft} onChange={setFilterDraft} />
        <button type="submit" class="button primary">
          Search
        </button>
        {filtered || deficitOnly ? (
          <a class="button secondary" href="/dashboard/accounts">
            {deficitOnly ? 'All accounts' : 'Clear'}
          </a>
        ) : (
          <a class="button secondary" href="/dashboard/accounts?deficit=1">
            In deficit
          </a>
        )}
      </form>
      {deficitOnly ? <DeficitAccountsList /> : null}
      <Loaded resource={accounts} what="accounts">
        {(data) =>
          data === null ? null : data.accounts.length === 0 ? (
            <Empty>
              {filtered ? (
                <p>
                  No account matches{' '}
                  {[q ? `“${q}”` : '', filter.key ? `metadata ${filter.key} = “${filter.value}”` : ''].filter(Boolean).join(' and ')}.
                </p>
              ) : (
                <p>No accounts yet. Accounts are provisioned through the API (POST /v1/accounts).</p>
              )}
            </Empty>
          ) : (
            <>
              <TableWrap label="Accounts">
                <table>
                  <thead>
                    <tr>
                      <th scope="col">AccountRef</th>
                      <th scope="col">Account number</th>
                      <th scope="col">Customer</th>
                      <th scope="col">externalRef</th>
                      <th scope="col" class="num">
                        Ledger
                      </th>
                      <th scope="col" class="num">
                        Available
                      </th>
                      <th scope="col">Status</th>
                    </tr>
                  </thead>
                  <tbody>
                    {data.accounts.map((account) => (
                      <tr key={account.ID}>
                        <td>
                          <a href={`/dashboard/accounts/${encodeURIComponent(account.AccountRef)}`}>{account.AccountRef}</a>
                        </td>
                        <td class="mono">{account.BankAccountNumber}</td>
                        <td>{account.CustomerName}</td>
                        <td>{account.CustomerExternalRef}</td>
                        <td class="num">{naira(account.balances.ledgerBalance)}</td>
                        <td class="num">{naira(account.balances.availableBalance)}</td>
                        <td>
                          <Badge status={account.Status} /> {account.InDeficit ? <Badge status="deficit" label="in deficit" /> : null}
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
                label="Account pages"
              />
            </>
          )
        }
      </Loaded>
    </>
  );
}
