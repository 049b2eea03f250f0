import { BadRequestError } from '../errors';
import { isUuid } from '../ids';
import type { Pagination } from './schemas';

/** Callers fetch limit + 1 rows; the extra row only says whether another page exists. */
export function paginate<T>(rows: T[], limit: number, cursorOf: (row: T) => string): { items: T[]; pagination: Pagination } {
  const hasMore = rows.length > limit;
  const items = hasMore ? rows.slice(0, limit) : rows;
  const last = items[items.length - 1];
  return { items, pagination: { limit, nextCursor: hasMore && last ? cursorOf(last) : null, hasMore } };
}

export function invalidCursor(): BadRequestError {
  return new BadRequestError('invalid_cursor', 'invalid cursor');
}

/** List cursors are row ids (UUIDv7, so id order is creation order). */
export function uuidCursor(after: string | undefined): string | null {
  if (after === undefined || after === '') return null;
  if (!isUuid(after)) throw invalidCursor();
  return after.toLowerCase();
}
