import { useLocation } from 'preact-iso';
import { api, query } from '../api';
import type { BooksBalances, Journal, JournalTransaction } from '../api-types';
import { Badge, PageTitle, Pager, TableWrap, useCursorPages } from '../components/bits';
import { Empty, Loaded, useResource } from '../components/state';
import { humanize, naira, when } from '../format';

const JOURNAL_PAGE = 50;

function BalancesTable(props: { books: BooksBalances }) {
  return (
    <TableWrap label="Balances">
      <table data-testid="books-balances">
        <thead>
          <tr>
            <th scope="col">Account</th>
            <th scope="col">Type</th>
            <th scope="col" class="num">
              Balance
            </th>
          </tr>
        </thead>
        <tbody>
          {props.books.accounts.map((line) => (
            <tr key={line.code} data-account={line.code}>
              <td>{line.name}</td>
              <td>{line.type === 'system' ? 'System' : 'Customers'}</td>
              <td class="num">{naira(line.balance)}</td>
            </tr>
          ))}
        </tbody>
        <tfoot>
          <tr>
            <th scope="row" colSpan={2}>
              Total
            </th>
            <td class="num" data-testid="books-total">
              {naira(props.books.total)}
            </td>
          </tr>
        </tfoot>
      </table>
    </TableWrap>
  );
}

/** A journal in the classic form: each transaction's postings as rows, debits and credits in their own columns. */
function JournalTable(props: { transactions: JournalTransaction[]; accountName: (code: string) => string }) {
  return (
    <TableWrap label="Journal">
      <table data-testid="books-journal">
        <thead>
          <tr>
            <th scope="col">Date</th>
            <th scope="col">Transaction</th>
            <th scope="col">Account</th>
            <th scope="col" class="num">
              Debit
            </th>
            <th scope="col" class="num">
              Credit
            </th>
          </tr>
        </thead>
        {props.transactions.map((transaction) => (
          <tbody key={transaction.id} data-transaction={transaction.id}>
            {transaction.postings.map((posting, index) => (
              <tr key={`${posting.account}-${posting.entryId ?? ''}`}>
                {index === 0 ? (
                  <>
                    <td rowSpan={transaction.postings.length}>{when(transaction.createdAt)}</td>
                    <td rowSpan={transaction.postings.length}>
                      <a href={`/dashboard/books${query({ transaction: transaction.id })}`}>{humanize(transaction.kind)}</a>
                      {transaction.reference ? <span class="muted small block mono">{transaction.reference}</span> : null}
                    </td>
                  </>
                ) : null}
                <td>
                  {posting.accountRef ? (
                    <>
                      <a href={`/dashboard/accounts/${encodeURIComponent(posting.accountRef)}`}>{posting.accountRef}</a>{' '}
                      {posting.status ? <Badge status={posting.status} /> : null}
                    </>
                  ) : (
                    props.accountName(posting.account)
                  )}
                </td>
                <td class="num">{posting.amount.startsWith('-') ? naira(posting.amount.slice(1)) : ''}</td>
                <td class="num">{posting.amount.startsWith('-') ? '' : naira(posting.amount)}</td>
              </tr>
            ))}
          </tbody>
        ))}
      </table>
    </TableWrap>
  );
}

export function BooksPage() {
  const location = useLocation();
  const transaction = location.query.transaction ?? '';
  const pages = useCursorPages([transaction]);
  const balances = useResource(() => api<BooksBalances>('GET', '/auth/ledger/balances'), []);
  const journal = useResource(
    () => api<Journal>('GET', `/auth/ledger/transactions${query({ limit: String(JOURNAL_PAGE), after: pages.cursor, transaction })}`),
    [transaction, pages.cursor],
  );
  const names = new Map<string, string>(balances.data?.accounts.map((line) => [line.code, line.name]) ?? []);
  const accountName = (code: string) => names.get(code) ?? humanize(code);

  return (
    <>
      <PageTitle title="Books" />
      <p class="muted">
        Every movement of money is a transaction whose postings sum to zero: the customer accounts on one side, the system accounts (the
        money at the provider, its fees, payouts on their way to a bank, payout fees) on the other. So the balances always total zero.
      </p>
      <section aria-labelledby="balances-title">
        <h2 id="balances-title">Balances</h2>
        <Loaded resource={balances} what="the balances">
          {(data) => <BalancesTable books={data} />}
        </Loaded>
      </section>
      <section aria-labelledby="journal-title">
        <h2 id="journal-title">Journal</h2>
        {transaction ? (
          <p class="notice notice-info">
            Showing one transaction. <a href="/dashboard/books">Show the whole journal</a>
          </p>
        ) : (
          <p class="muted small">Newest first; in each transaction the debits equal the credits.</p>
        )}
        <Loaded resource={journal} what="the journal">
          {(data) => (
            <>
              {data.transactions.length === 0 ? (
                <Empty>
                  <p>
                    {transaction
                      ? 'No such transaction in your books.'
                      : pages.page === 1
                        ? 'No transactions yet.'
                        : 'No more transactions.'}
                  </p>
                </Empty>
              ) : (
                <JournalTable transactions={data.transactions} accountName={accountName} />
              )}
              <Pager
                page={pages.page}
                nextCursor={data.pagination.nextCursor}
                onNext={pages.next}
                onPrevious={pages.previous}
                label="Journal pages"
              />
            </>
          )}
        </Loaded>
      </section>
    </>
  );
}
