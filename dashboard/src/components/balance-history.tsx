import { useState } from 'preact/hooks';
import { api, query } from '../api';
import type { BalanceAt, DailyBalances } from '../api-types';
import { day, lagosInstant, lagosToday, naira, when } from '../format';
import { Field, Summary, TableWrap } from './bits';
import { Loaded, useResource } from './state';

/** The ledger balance as it stood at an instant the operator picks (Lagos time). */
function BalanceAsOf(props: { accountRef: string }) {
  const { accountRef } = props;
  const [draft, setDraft] = useState('');
  const [asOf, setAsOf] = useState('');
  const balance = useResource(
    () =>
      asOf
        ? api<BalanceAt>('GET', `/auth/accounts/${encodeURIComponent(accountRef)}/balance${query({ at: lagosInstant(asOf) })}`)
        : Promise.resolve<BalanceAt | null>(null),
    [accountRef, asOf],
  );

  function show(event: Event): void {
    event.preventDefault();
    setAsOf(draft);
  }

  return (
    <>
      <form class="toolbar" onSubmit={show} aria-label="Balance as of">
        <Field label="As of (Lagos time)">
          <input
            type="datetime-local"
            name="asOf"
            step={1}
            required
            value={draft}
            onInput={(event) => setDraft(event.currentTarget.value)}
          />
        </Field>
        <button type="submit" class="button secondary">
          Show balance
        </button>
      </form>
      <Loaded resource={balance} what="the balance then">
        {(data) =>
          data === null ? null : (
            <div data-testid="balance-as-of">
              <Summary
                items={[
                  ['As of', when(data.asOf)],
                  ['Ledger balance', <span data-testid="balance-as-of-ledger">{naira(data.ledgerBalance)}</span>],
                  ['Credited to then', naira(data.totalCredits)],
                  ['Debited to then', naira(data.totalDebits)],
                ]}
              />
            </div>
          )
        }
      </Loaded>
    </>
  );
}

/** The account's Lagos days over a range: each day's opening, credits, debits and closing. */
function DailyBalancesTable(props: { accountRef: string }) {
  const { accountRef } = props;
  const [draft, setDraft] = useState({ from: '', to: '' });
  const [range, setRange] = useState<{ from: string; to: string } | null>(null);
  const days = useResource(
    () =>
      range
        ? api<DailyBalances>('GET', `/auth/accounts/${encodeURIComponent(accountRef)}/daily-balances${query(range)}`)
        : Promise.resolve<DailyBalances | null>(null),
    [accountRef, range?.from, range?.to],
  );

  function show(event: Event): void {
    event.preventDefault();
    setRange(draft);
  }

  return (
    <>
      <form class="toolbar" onSubmit={show} aria-label="Daily balances">
        <Field label="First day">
          <input
            type="date"
            name="dailyFrom"
            required
            max={lagosToday()}
            value={draft.from}
            onInput={(event) => setDraft({ ...draft, from: event.currentTarget.value })}
          />
        </Field>
        <Field label="Last day (included)">
          <input
            type="date"
            name="dailyTo"
            required
            max={lagosToday()}
            value={draft.to}
            onInput={(event) => setDraft({ ...draft, to: event.currentTarget.value })}
          />
        </Field>
        <button type="submit" class="button secondary">
          Show days
        </button>
      </form>
      <Loaded resource={days} what="the daily balances">
        {(data) =>
          data === null ? null : (
            <TableWrap label="Daily balances">
              <table data-testid="daily-balances">
                <thead>
                  <tr>
                    <th scope="col">Day</th>
                    <th scope="col" class="num">
                      Opening
                    </th>
                    <th scope="col" class="num">
                      Credits
                    </th>
                    <th scope="col" class="num">
                      Debits
                    </th>
                    <th scope="col" class="num">
                      Closing
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {data.days.map((row) => (
                    <tr key={row.date}>
                      <td>{day(row.date)}</td>
                      <td class="num">{naira(row.openingBalance)}</td>
                      <td class="num">{naira(row.credits)}</td>
                      <td class="num">{naira(row.debits)}</td>
                      <td class="num">{naira(row.closingBalance)}</td>
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

/** Balances in the past: at an instant, and day by day (Africa/Lagos), from the ledger's running balances. */
export function BalanceHistorySection(props: { accountRef: string }) {
  return (
    <section aria-labelledby="balance-history-title">
      <h2 id="balance-history-title">Balance history</h2>
      <p class="muted small">
        The ledger balance as it stood then: entries posted after that instant are left out, and a reversal counts from when it was posted.
        Times and days are Lagos time.
      </p>
      <BalanceAsOf accountRef={props.accountRef} />
      <DailyBalancesTable accountRef={props.accountRef} />
    </section>
  );
}
