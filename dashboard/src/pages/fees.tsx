import { useState } from 'preact/hooks';
import { api, ApiError, query } from '../api';
import type { FeeQuote } from '../api-types';
import { Field, PageTitle, Summary, TableWrap } from '../components/bits';
import { Empty, Loaded, useResource } from '../components/state';
import { naira } from '../format';

interface Tiers {
  tiers: Array<{ minSend: string; maxSend: string | null; fee: string }>;
}

export function FeesPage() {
  const [amount, setAmount] = useState('');
  const [quote, setQuote] = useState<FeeQuote | null>(null);
  const [error, setError] = useState<string | null>(null);
  const tiers = useResource(() => api<Tiers>('GET', '/auth/fees/tiers'), []);

  async function calculate(event: Event): Promise<void> {
    event.preventDefault();
    setError(null);
    setQuote(null);
    try {
      setQuote(await api<FeeQuote>('GET', `/auth/fees/calculate${query({ amount: amount.trim() })}`));
    } catch (failure) {
      setError(
        failure instanceof ApiError && failure.message === 'invalid amount'
          ? 'Enter an amount in naira, with at most two decimals.'
          : (failure as Error).message,
      );
    }
  }

  return (
    <>
      <PageTitle title="Fee calculator" />
      <p class="muted">What must a payer send so that an exact amount lands in the account, after the provider's fee?</p>
      <form class="toolbar" onSubmit={calculate}>
        <Field label="Amount to receive (naira)">
          <input name="amount" inputMode="decimal" required value={amount} onInput={(event) => setAmount(event.currentTarget.value)} />
        </Field>
        <button type="submit" class="button primary">
          Calculate
        </button>
      </form>
      {error ? (
        <p class="notice notice-error" role="alert">
          {error}
        </p>
      ) : null}
      {quote ? (
        <div role="status">
          <Summary
            items={[
              ['Lands in the account', naira(quote.receive_amount)],
              ['Provider fee', naira(quote.provider_fee)],
              ['The payer sends', <strong data-testid="send-amount">{naira(quote.send_amount)}</strong>],
            ]}
          />
        </div>
      ) : null}
      <section aria-labelledby="tiers-title">
        <h2 id="tiers-title">Fee tiers (on the amount sent)</h2>
        <Loaded resource={tiers} what="fee tiers">
          {(data) =>
            data.tiers.length === 0 ? (
              <Empty>
                <p>No fee tiers are set.</p>
              </Empty>
            ) : (
              <TableWrap label="Fee tiers">
                <table>
                  <thead>
                    <tr>
                      <th scope="col">Sent from</th>
                      <th scope="col">Sent up to</th>
                      <th scope="col" class="num">
                        Fee
                      </th>
                    </tr>
                  </thead>
                  <tbody>
                    {data.tiers.map((tier) => (
                      <tr key={tier.minSend}>
                        <td>{naira(tier.minSend)}</td>
                        <td>{tier.maxSend ? naira(tier.maxSend) : 'and above'}</td>
                        <td class="num">{naira(tier.fee)}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </TableWrap>
            )
          }
        </Loaded>
      </section>
    </>
  );
}
