/** Bank account names compared as a person reads them: case, and spaces between words, do not count. */
export function sameAccountName(left: string, right: string): boolean {
  const normal = (name: string) => name.trim().replace(/\s+/g, ' ').toUpperCase();
  return normal(left) === normal(right);
}
