import { z } from 'zod';
import { ValidationError, type ErrorDetail } from '../errors';

function pathOf(path: ReadonlyArray<PropertyKey>, root: string): string {
  if (path.length === 0) return root;
  return path.reduce<string>((out, key) => (typeof key === 'number' ? `${out}[${key}]` : out ? `${out}.${String(key)}` : String(key)), '');
}

/**
 * Messages for issues a schema did not word itself. A schema-level message (for example SPEC.md's
 * "invalid amount") always wins over these.
 */
function messageFor(issue: z.core.$ZodRawIssue, root: string): string | undefined {
  const field = pathOf(issue.path ?? [], root);
  switch (issue.code) {
    case 'invalid_type':
      return issue.input === undefined ? `${field} is required` : `${field} must be a ${issue.expected}`;
    case 'too_small':
      return issue.origin === 'string'
        ? `${field} must be at least ${String(issue.minimum)} characters`
        : `${field} must be at least ${String(issue.minimum)}`;
    case 'too_big':
      return issue.origin === 'string'
        ? `${field} must be at most ${String(issue.maximum)} characters`
        : `${field} must be at most ${String(issue.maximum)}`;
    case 'invalid_format':
      return `${field} is not a valid ${issue.format}`;
    case 'invalid_value':
      return `${field} must be one of ${issue.values.map((value) => JSON.stringify(value)).join(', ')}`;
    default:
      return undefined;
  }
}

/** Where a validated value holds a NUL character (Postgres text cannot store one), or null. */
function nulCharacterAt(value: unknown, path: PropertyKey[] = []): PropertyKey[] | null {
  if (typeof value === 'string') return value.includes('\0') ? path : null;
  if (value === null || typeof value !== 'object') return null;
  for (const [key, item] of Object.entries(value)) {
    const found = nulCharacterAt(item, [...path, Array.isArray(value) ? Number(key) : key]);
    if (found) return found;
  }
  return null;
}

/**
 * Validates one part of a request; the first issue becomes the error text, all of them the details.
 * Values that pass the schema must also be storable, so none may contain a NUL character.
 */
export function validate<T extends z.ZodType>(schema: T, input: unknown, root: string): z.output<T> {
  const result = schema.safeParse(input, { error: (issue) => messageFor(issue, root) });
  if (result.success) {
    const nul = nulCharacterAt(result.data);
    if (!nul) return result.data;
    const path = pathOf(nul, root);
    throw new ValidationError(`${path} must not contain NUL characters`, [{ path, message: `${path} must not contain NUL characters` }]);
  }
  const details: ErrorDetail[] = result.error.issues.map((issue) => ({ path: pathOf(issue.path, root), message: issue.message }));
  throw new ValidationError(details[0]?.message ?? `${root} is invalid`, details);
}
