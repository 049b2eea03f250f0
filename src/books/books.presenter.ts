import type { JournalTransaction } from '../ledger/ledger-books.repo';
import { formatKobo } from '../money';
import type { Books } from './books.service';

export function presentBooks(books: Books) {
  return {
    accounts: books.accounts.map((line) => ({ code: line.code, name: line.name, type: line.type, balance: formatKobo(line.balance) })),
    total: formatKobo(books.total),
  };
}

export function presentTransaction(transaction: JournalTransaction) {
  return {
    id: transaction.id,
    kind: transaction.kind,
    reference: transaction.reference,
    createdAt: transaction.createdAt.toISOString(),
    postings: transaction.postings.map((posting) => ({ ...posting, amount: formatKobo(posting.amount) })),
  };
}
