import { presentAccount, presentFreeze, presentReserved } from './account.presenter';
import { formatKobo } from '../money';
import { presentEntry } from './entry.presenter';
import type { Statement } from './statement.service';
import type { StatementEntry } from '../ledger/statement.repo';
import type { StatementEntryView } from './statement.schemas';

/**
 * A statement line's entry: a transfer's also names the account on its other side, and a dynamic account's payment
 * its judgement (other lines are exactly the spec's).
 */
function presentStatementEntry(entry: StatementEntry): StatementEntryView {
  const view: StatementEntryView = presentEntry(entry);
  if (entry.counterpartAccountRef !== null) view.CounterpartAccountRef = entry.counterpartAccountRef;
  if (entry.judgement !== null) {
    const { expectedAmount, amountReceived, variance, action } = entry.judgement;
    view.ExpectedAmount = expectedAmount === null ? null : formatKobo(expectedAmount);
    view.AmountReceived = formatKobo(amountReceived);
    view.Variance = variance;
    view.MismatchAction = action;
  }
  return view;
}

/** A statement page as the API shows it, with the cursor of the next page. */
export function presentStatement(statement: Statement, limit: number) {
  const last = statement.lines[statement.lines.length - 1];
  return {
    virtualAccount: presentAccount(statement.account),
    lines: statement.lines.map((entry) => ({ entry: presentStatementEntry(entry), runningBalance: formatKobo(entry.balanceAfter) })),
    openingBalance: formatKobo(statement.openingBalance),
    totalCredits: formatKobo(statement.totalCredits),
    totalDebits: formatKobo(statement.totalDebits),
    closingBalance: formatKobo(statement.closingBalance),
    reserved: presentReserved(statement.funds),
    freeze: presentFreeze(statement.account),
    pagination: { limit, nextCursor: statement.hasMore && last ? last.id : null, hasMore: statement.hasMore },
  };
}

/** The dashboard's statement page: each entry also names its ledger transaction, for the link to the Books page. */
export function presentDashboardStatement(statement: Statement, limit: number) {
  return {
    ...presentStatement(statement, limit),
    lines: statement.lines.map((entry) => ({
      entry: { ...presentStatementEntry(entry), TransactionId: entry.transactionId },
      runningBalance: formatKobo(entry.balanceAfter),
    })),
  };
}
