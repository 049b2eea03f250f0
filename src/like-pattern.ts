/**
 * A LIKE pattern matching any text that contains `text` (lower-cased, for `lower(column) LIKE ?
 * ESCAPE '\'`): % and _ in the search mean the characters themselves, not wildcards.
 */
export function containsPattern(text: string): string {
  return `%${text.toLowerCase().replace(/[\\%_]/g, (character) => `\\${character}`)}%`;
}
