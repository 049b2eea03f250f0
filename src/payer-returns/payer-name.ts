/**
 * A person's name as both a payment webhook and a bank's name enquiry may write it, reduced to what names
 * the person: accents dropped (NFKD, then the combining marks removed: "Adébáyọ̀" is "adebayo"), case folded,
 * apostrophes dropped ("O'Neil" is "oneil"), every other run of characters that are not letters or digits
 * (spaces, hyphens, dots, commas, slashes) a break between words, and the words sorted, so their order does
 * not count ("OKAFOR ADA" is "Ada Okafor"). Every word must still be there: a missing middle name is
 * another name, which an operator may confirm.
 */
export function normalisedName(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/['‘’`]/g, '')
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word !== '')
    .sort()
    .join(' ');
}

/** Whether two names are one person's under `normalisedName`; a name with no letters or digits matches none. */
export function namesMatch(left: string, right: string): boolean {
  const normalised = normalisedName(left);
  return normalised !== '' && normalised === normalisedName(right);
}
