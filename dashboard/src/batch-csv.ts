// A bulk payout file as the dashboard reads it: a header row naming the columns, then one item per row.
import type { SettlementBatchItem } from './api-types';

export const BATCH_COLUMNS = ['reference', 'accountRef', 'amount', 'bankCode', 'accountNumber', 'beneficiaryId', 'narration'] as const;

/** The rows of a CSV text: fields split on commas, a quoted field may hold commas, quotes ("") and line breaks. */
function records(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i += 1) {
    const char = text[i]!;
    if (quoted) {
      if (char === '"' && text[i + 1] === '"') {
        field += '"';
        i += 1;
      } else if (char === '"') quoted = false;
      else field += char;
    } else if (char === '"') quoted = true;
    else if (char === ',') {
      row.push(field);
      field = '';
    } else if (char === '\n' || char === '\r') {
      if (char === '\r' && text[i + 1] === '\n') i += 1;
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
    } else field += char;
  }
  if (field !== '' || row.length > 0) rows.push([...row, field]);
  return rows.filter((cells) => cells.some((cell) => cell.trim() !== ''));
}

/**
 * The file's items, or what makes it unreadable as a whole (the service would refuse the request):
 * a missing column, a row without a reference, account or amount, a reference used twice, too many rows.
 * Each item's values are judged by the service's dry run, by the same rules as a settle.
 */
export function parseBatchCsv(text: string): { rows: SettlementBatchItem[] } | { error: string } {
  const [header, ...lines] = records(text.replace(/^\uFEFF/, ''));
  if (!header) return { error: 'The file is empty.' };
  const names = header.map((name) => name.trim());
  for (const required of ['reference', 'accountRef', 'amount'])
    if (!names.includes(required)) return { error: `The header row has no "${required}" column.` };
  if (lines.length === 0) return { error: 'The file has a header row but no items.' };
  if (lines.length > 5000) return { error: `The file has ${lines.length} items; a batch holds at most 5,000.` };
  const seen = new Map<string, number>();
  const rows: SettlementBatchItem[] = [];
  for (const [index, cells] of lines.entries()) {
    const row: Record<string, string> = {};
    names.forEach((name, column) => {
      const value = (cells[column] ?? '').trim();
      if ((BATCH_COLUMNS as readonly string[]).includes(name) && value !== '') row[name] = value;
    });
    const line = index + 2;
    if (!row.reference || !row.accountRef || !row.amount) return { error: `Line ${line} needs a reference, an accountRef and an amount.` };
    const first = seen.get(row.reference);
    if (first !== undefined)
      return { error: `The reference "${row.reference}" is on line ${first} and line ${line}: references must be unique.` };
    seen.set(row.reference, line);
    rows.push(row as unknown as SettlementBatchItem);
  }
  return { rows };
}
