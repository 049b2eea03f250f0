import { z } from 'zod';
import { ValidationError } from '../errors';

/** The tenant's own data on a record: string keys to string values. */
export type Metadata = Record<string, string>;

export const METADATA_MAX_KEYS = 20;
export const METADATA_KEY_MAX_LENGTH = 40;
export const METADATA_VALUE_MAX_LENGTH = 500;
/** The whole object, serialized as JSON (UTF-8 bytes). */
export const METADATA_MAX_BYTES = 4096;

const KEY_PATTERN = new RegExp(`^[A-Za-z0-9_.-]{1,${METADATA_KEY_MAX_LENGTH}}$`);
const KEY_RULE = `1 to ${METADATA_KEY_MAX_LENGTH} characters of A-Z, a-z, 0-9, "_", "." and "-"`;

type Issue = { path: string[]; message: string };

/** What is wrong with the keys and values of a metadata object (`null` values allowed where `nulls` says so). */
function metadataIssues(field: string, entries: Array<[string, unknown]>, nulls: boolean): Issue[] {
  const issues: Issue[] = [];
  for (const [key, value] of entries) {
    if (!KEY_PATTERN.test(key)) {
      issues.push({ path: [key], message: `${field} key ${JSON.stringify(key)} must be ${KEY_RULE}` });
    } else if (value === null && nulls) {
      continue;
    } else if (typeof value !== 'string') {
      issues.push({ path: [key], message: `${field}.${key} must be a string${nulls ? ' (or null to delete the key)' : ''}` });
    } else if (value.length > METADATA_VALUE_MAX_LENGTH) {
      issues.push({ path: [key], message: `${field}.${key} must be at most ${METADATA_VALUE_MAX_LENGTH} characters` });
    }
  }
  return issues;
}

/** The bounds of a whole metadata object: how many keys, how large serialized. */
export function metadataSizeError(metadata: Metadata): string | undefined {
  if (Object.keys(metadata).length > METADATA_MAX_KEYS) return `metadata must have at most ${METADATA_MAX_KEYS} keys`;
  if (new TextEncoder().encode(JSON.stringify(metadata)).length > METADATA_MAX_BYTES)
    return `metadata must be at most ${METADATA_MAX_BYTES} bytes serialized as JSON`;
  return undefined;
}

/**
 * A change (metadataPatchSchema's) merged into a record's metadata: each key given set, a key given null deleted,
 * the others kept; a result out of bounds is refused as a 400, so nothing is written.
 */
export function mergedMetadata(current: Metadata, change: Record<string, string | null>): Metadata {
  const merged: Metadata = { ...current };
  for (const [key, value] of Object.entries(change)) {
    if (value === null) delete merged[key];
    else merged[key] = value;
  }
  const tooLarge = metadataSizeError(merged);
  if (tooLarge) throw new ValidationError(`${tooLarge} (after this change)`);
  return merged;
}

/** The keys a change sets and deletes, as its audit entry records them. */
export function metadataChangeDetail(change: Record<string, string | null>): { set: string[]; deleted: string[] } {
  return {
    set: Object.keys(change).filter((key) => change[key] !== null),
    deleted: Object.keys(change).filter((key) => change[key] === null),
  };
}

/**
 * Values are read as unknown and judged here, so each refusal names its key; the API document (and the types generated
 * from it) still says what is accepted: string values (or null, where `nulls`).
 */
function objectOf(field: string, nulls: boolean) {
  return z
    .record(z.string(), z.unknown(), { error: `${field} must be an object of string keys to string values` })
    .superRefine((value, ctx) => {
      for (const issue of metadataIssues(field, Object.entries(value), nulls)) ctx.addIssue({ code: 'custom', ...issue });
    })
    .meta({ additionalProperties: nulls ? { type: 'string', nullable: true } : { type: 'string' } });
}

const BOUNDS = `at most ${METADATA_MAX_KEYS} keys, each ${KEY_RULE}; values strings of at most ${METADATA_VALUE_MAX_LENGTH} characters; at most ${METADATA_MAX_BYTES} bytes as JSON`;

/** `metadata` on a create: the tenant's own data, returned on every read of the record and in its events. */
export const metadataSchema = objectOf('metadata', false)
  .superRefine((value, ctx) => {
    const error = metadataSizeError(value as Metadata);
    if (error) ctx.addIssue({ code: 'custom', message: error });
  })
  .transform((value) => value as Metadata)
  .describe(`The tenant's own data on the record: string keys to string values (${BOUNDS})`);

/** `metadata` on a change: merged into the record's, a `null` value deleting its key; the result is bounded as on create. */
export const metadataPatchSchema = objectOf('metadata', true)
  .transform((value) => value as Record<string, string | null>)
  .describe(
    `Merged into the record's metadata: each key given is set, a key given null is deleted, keys not given are kept; the result is bounded as on create (${BOUNDS})`,
  );

/** `metadata` as every read answers it: present when the record carries any (a record without answers as it always did). */
export const metadataViewSchema = z
  .record(z.string(), z.string())
  .optional()
  .describe("The tenant's own data on the record; absent when it carries none");

/** A record's metadata as its reads answer it (and its events tell it): only when it has any. */
export function presentMetadata<Name extends string>(name: Name, metadata: Metadata): { [K in Name]?: Metadata } {
  return (Object.keys(metadata).length > 0 ? { [name]: metadata } : {}) as { [K in Name]?: Metadata };
}

/**
 * A list's metadata filter, `?metadata[orderId]=A-17&metadata[loan]=L-9`: only the records carrying every pair given.
 * The query string reaches the schema folded into one `metadata` object (see foldBracketedQuery).
 */
export const metadataFilterSchema = objectOf('metadata', false)
  .superRefine((value, ctx) => {
    if (Object.keys(value).length > METADATA_MAX_KEYS)
      ctx.addIssue({ code: 'custom', message: `a metadata filter may name at most ${METADATA_MAX_KEYS} keys` });
  })
  .transform((value) => value as Metadata)
  .optional()
  .describe('Only the records whose metadata has every key given with exactly that value: metadata[orderId]=A-17');

/**
 * The query string as Node parses it keeps `metadata[orderId]=A-17` as one flat name; a list's schema reads it as
 * `{ metadata: { orderId: 'A-17' } }`. Every `name[inner]` is folded this way, whatever `inner` holds, so a filter
 * naming a bad key is refused by the schema rather than dropped unread.
 */
export function foldBracketedQuery(query: Record<string, unknown>): Record<string, unknown> {
  const folded: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(query)) {
    const bracketed = /^([A-Za-z]+)\[(.*)\]$/.exec(name);
    if (!bracketed) {
      folded[name] = value;
      continue;
    }
    const [, outer, inner] = bracketed as unknown as [string, string, string];
    const existing = folded[outer];
    const group =
      existing !== null && typeof existing === 'object' && !Array.isArray(existing) ? (existing as Record<string, unknown>) : {};
    if (existing === undefined || group === existing) folded[outer] = Object.assign(group, { [inner]: value });
  }
  return folded;
}
