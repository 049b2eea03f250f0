import { useLocation } from 'preact-iso';
import { useState } from 'preact/hooks';
import { api, query } from '../api';
import type { SettlementBatchDryRun, SettlementBatchItem, SettlementBatchList, SettlementBatchSummary } from '../api-types';
import { parseBatchCsv } from '../batch-csv';
import { Badge, Field, PageTitle, Pager, TableWrap, useCursorPages } from '../components/bits';
import { Empty, ErrorBox, Loaded, useResource } from '../components/state';
import { newIdempotencyKey, when } from '../format';
import { useCan } from '../session';

/** A file read and previewed: its rows, each judged by the service's dry run, and the one key of this batch. */
interface Preview {
  fileName: string;
  rows: SettlementBatchItem[];
  judged: SettlementBatchDryRun;
  idempotencyKey: string;
}

function NewBatch() {
  const location = useLocation();
  const [preview, setPreview] = useState<Preview | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function read(file: File): Promise<void> {
    setPreview(null);
    setError(null);
    const parsed = parseBatchCsv(await file.text());
    if ('error' in parsed) return setError(parsed.error);
    setBusy(true);
    try {
      const judged = await api<SettlementBatchDryRun>('POST', '/auth/settlement-batches?dryRun=true', { body: { items: parsed.rows } });
      setPreview({ fileName: file.name, rows: parsed.rows, judged, idempotencyKey: newIdempotencyKey() });
    } catch (failure) {
      setError((failure as Error).message);
    } finally {
      setBusy(false);
    }
  }

  async function create(): Promise<void> {
    if (!preview) return;
    setBusy(true);
    setError(null);
    try {
      const batch = await api<SettlementBatchSummary>('POST', '/auth/settlement-batches', {
        headers: { 'Idempotency-Key': preview.idempotencyKey },
        body: { items: preview.rows },
      });
      location.route(`/dashboard/settlement-batches/${batch.id}`);
    } catch (failure) {
      setError((failure as Error).message);
      setBusy(false);
    }
  }

  return (
    <section aria-labelledby="new-batch">
      <h2 id="new-batch">New batch from a CSV file</h2>
      <p class="muted">
        Columns: <code>reference,accountRef,amount,bankCode,accountNumber,narration</code>, or <code>beneficiaryId</code> instead of the
        bank code and account number. Each row is checked before anything is paid; a row that fails fails alone.
      </p>
      <form class="form" onSubmit={(event) => event.preventDefault()}>
        <Field label="Payout file (CSV)">
          <input
            name="file"
            type="file"
            accept=".csv,text/csv"
            disabled={busy}
            onChange={(event) => {
              const file = event.currentTarget.files?.[0];
              if (file) void read(file);
            }}
          />
        </Field>
      </form>
      {error ? <ErrorBox message={error} /> : null}
      {preview ? (
        <>
          <p data-testid="preview-summary">
            {preview.fileName}: <strong>{preview.judged.valid}</strong> of {preview.rows.length} rows can be paid now;{' '}
            <strong>{preview.judged.invalid}</strong> would fail.
          </p>
          <TableWrap label="Preview of the rows">
            <table>
              <thead>
                <tr>
                  <th scope="col">Reference</th>
                  <th scope="col">Account</th>
                  <th scope="col" class="num">
                    Amount
                  </th>
                  <th scope="col">Destination</th>
                  <th scope="col">Check</th>
                </tr>
              </thead>
              <tbody>
                {preview.rows.map((row, index) => {
                  const judged = preview.judged.items[index]!;
                  return (
                    <tr key={row.reference}>
                      <td class="mono">{row.reference}</td>
                      <td class="mono">{row.accountRef}</td>
                      <td class="num">{row.amount}</td>
                      <td class="mono">{row.beneficiaryId ?? `${row.bankCode ?? '?'} ${row.accountNumber ?? '?'}`}</td>
                      <td>
                        {judged.valid ? (
                          <Badge status="success" label="ok" />
                        ) : (
                          <Badge status="failed" label={judged.reason ?? 'invalid'} />
                        )}
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </TableWrap>
          <button type="button" class="button" disabled={busy || preview.judged.valid === 0} onClick={() => void create()}>
            Pay {preview.judged.valid} {preview.judged.valid === 1 ? 'row' : 'rows'} (the others fail)
          </button>
        </>
      ) : null}
    </section>
  );
}

export function SettlementBatchesPage() {
  const canPay = useCan('move_money');
  const pages = useCursorPages([]);
  const batches = useResource(
    () => api<SettlementBatchList>('GET', `/auth/settlement-batches${query({ after: pages.cursor })}`),
    [pages.cursor],
    5_000,
  );
  return (
    <>
      <PageTitle title="Bulk payouts" />
      {canPay ? <NewBatch /> : <p class="muted">Your role can follow batches but not pay one.</p>}
      <h2>Batches</h2>
      <Loaded resource={batches} what="batches">
        {(data) =>
          data.batches.length === 0 ? (
            <Empty>No batch yet.</Empty>
          ) : (
            <>
              <TableWrap label="Batches">
                <table>
                  <thead>
                    <tr>
                      <th scope="col">Batch</th>
                      <th scope="col">Status</th>
                      <th scope="col" class="num">
                        Paid
                      </th>
                      <th scope="col" class="num">
                        Failed
                      </th>
                      <th scope="col" class="num">
                        Open
                      </th>
                      <th scope="col">Created</th>
                    </tr>
                  </thead>
                  <tbody>
                    {data.batches.map((batch) => (
                      <tr key={batch.id}>
                        <td>
                          <a href={`/dashboard/settlement-batches/${batch.id}`} class="mono">
                            {batch.id}
                          </a>
                        </td>
                        <td>
                          <Badge status={batch.status} />
                        </td>
                        <td class="num">{batch.counts.success}</td>
                        <td class="num">{batch.counts.failed + batch.counts.refunded}</td>
                        <td class="num">{batch.counts.queued + batch.counts.pending + batch.counts.processing}</td>
                        <td>{when(batch.createdAt)}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </TableWrap>
              <Pager page={pages.page} nextCursor={data.pagination.nextCursor} onNext={pages.next} onPrevious={pages.previous} />
            </>
          )
        }
      </Loaded>
    </>
  );
}
