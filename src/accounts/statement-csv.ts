import { Readable } from 'node:stream';
import { formatKobo } from '../money';
import type { PaymentJudgement } from '../policies/dynamic-account-amount/amount-policy';
import type { StatementEntry } from '../ledger/statement.repo';
import type { Statement, StatementService } from './statement.service';

const EXPORT_PAGE_SIZE = 500;

const HEADER = [
  'Date',
  'Entry ID',
  'Kind',
  'Direction',
  'Status',
  'Amount',
  'Fee',
  'Running balance',
  'Narration',
  'Provider reference',
  'Transaction group',
  'Reverses entry',
  'Counterpart account',
  // A dynamic account's judgement of a payment: after every other column, so no earlier column moves, and in every
  // export (empty where nothing was judged), so one account's file reads like another's.
  'Expected amount',
  'Amount received',
  'Variance',
  'Mismatch action',
];

/**
 * A cell of free text (narrations come from payers): quoted, and a leading = + - @ or control
 * character is neutralised so a spreadsheet never reads it as a formula.
 */
function textCell(value: string): string {
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return `"${safe.replace(/"/g, '""')}"`;
}

function csvLine(cells: string[]): string {
  return `${cells.join(',')}\r\n`;
}

/** A dynamic account's payment: what was expected (empty without an expected amount), what came (gross), and its judgement. */
function judgementCells(judgement: PaymentJudgement | null): string[] {
  if (judgement === null) return ['', '', '', ''];
  return [
    judgement.expectedAmount === null ? '' : formatKobo(judgement.expectedAmount),
    formatKobo(judgement.amountReceived),
    judgement.variance,
    judgement.action,
  ];
}

function entryLine(entry: StatementEntry): string {
  return csvLine([
    entry.createdAt.toISOString(),
    entry.id,
    entry.kind,
    entry.direction,
    entry.status,
    formatKobo(entry.amount),
    formatKobo(entry.fee),
    formatKobo(entry.balanceAfter),
    textCell(entry.narration),
    textCell(entry.providerTxnRef ?? ''),
    entry.transactionGroupId,
    entry.reversesEntryId ?? '',
    // A transfer's other account: a reference the tenant chose, so free text like a narration.
    entry.counterpartAccountRef === null ? '' : textCell(entry.counterpartAccountRef),
    ...judgementCells(entry.judgement),
  ]);
}

/**
 * A period's statement as CSV, read page by page through the statement service while the client
 * reads: memory stays at one page whatever the period holds. The first page is read before anything
 * is sent, so an unknown account or a bad period is still an ordinary error response.
 */
export async function statementCsv(
  statements: StatementService,
  tenantId: string,
  accountRef: string,
  period: { from?: Date; to: Date },
): Promise<Readable> {
  const read = (after?: string): Promise<Statement> =>
    statements.statement(tenantId, accountRef, { limit: EXPORT_PAGE_SIZE, ...period, ...(after ? { after } : {}) });
  const first = await read();
  async function* lines(): AsyncGenerator<string> {
    yield csvLine(HEADER);
    let page = first;
    for (;;) {
      for (const entry of page.lines) yield entryLine(entry);
      const last = page.lines[page.lines.length - 1];
      if (!page.hasMore || !last) return;
      page = await read(last.id);
    }
  }
  return Readable.from(lines());
}
