import { useLocation } from 'preact-iso';
import { useState } from 'preact/hooks';
import { api, query } from '../api';
import type { CustomerSearch } from '../api-types';
import { Badge, Field, PageTitle, Pager, TableWrap, useCursorPages } from '../components/bits';
import { Empty, Loaded, useResource } from '../components/state';
import { when } from '../format';

export function CustomersPage() {
  const location = useLocation();
  const { q = '', kycStatus = '', status = '' } = location.query;
  const [text, setText] = useState(q);
  const pages = useCursorPages([q, kycStatus, status]);
  const customers = useResource(
    () => api<CustomerSearch>('GET', `/auth/customers${query({ q, kycStatus, status, after: pages.cursor })}`),
    [q, kycStatus, status, pages.cursor],
  );
  const go = (change: Record<string, string>) => location.route(`/dashboard/customers${query({ q, kycStatus, status, ...change })}`);

  return (
    <>
      <PageTitle title="Customers" />
      <form
        class="toolbar"
        role="search"
        onSubmit={(event) => {
          event.preventDefault();
          go({ q: text.trim() });
        }}
      >
        <Field label="Search customers" hint="Name (any part), externalRef or customer id">
          <input type="search" name="q" value={text} onInput={(event) => setText(event.currentTarget.value)} />
        </Field>
        <Field label="KYC status">
          <select name="kycStatus" value={kycStatus} onChange={(event) => go({ kycStatus: event.currentTarget.value })}>
            <option value="">Any</option>
            <option value="none">none</option>
            <option value="pending_review">pending review</option>
            <option value="approved">approved</option>
            <option value="rejected">rejected</option>
          </select>
        </Field>
        <Field label="Status">
          <select name="status" value={status} onChange={(event) => go({ status: event.currentTarget.value })}>
            <option value="">Any</option>
            <option value="active">active</option>
            <option value="suspended">suspended</option>
          </select>
        </Field>
        <button type="submit" class="button primary">
          Search
        </button>
      </form>
      <Loaded resource={customers} what="customers">
        {(data) =>
          data.customers.length === 0 ? (
            <Empty>
              <p>{q || kycStatus || status ? 'No customer matches.' : 'No customers yet: a customer is made with its first account.'}</p>
            </Empty>
          ) : (
            <>
              <TableWrap label="Customers">
                <table>
                  <thead>
                    <tr>
                      <th scope="col">Name</th>
                      <th scope="col">externalRef</th>
                      <th scope="col">KYC</th>
                      <th scope="col">Status</th>
                      <th scope="col">Since</th>
                    </tr>
                  </thead>
                  <tbody>
                    {data.customers.map((customer) => (
                      <tr key={customer.ID}>
                        <td>
                          <a href={`/dashboard/customers/${customer.ID}`}>{customer.Name}</a>
                        </td>
                        <td>{customer.ExternalRef}</td>
                        <td>
                          <Badge status={customer.KYCStatus} /> <span class="muted small">tier {customer.KYCTier}</span>
                        </td>
                        <td>
                          <Badge status={customer.Status} />
                        </td>
                        <td>{when(customer.CreatedAt)}</td>
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
                label="Customer pages"
              />
            </>
          )
        }
      </Loaded>
    </>
  );
}
