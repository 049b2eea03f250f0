/** A bank of the provider's bank list. */
export interface ListedBank {
  code: string;
  name: string;
}

/** Case, punctuation and spacing do not count: "GUARANTY TRUST BANK" and "Guaranty Trust Bank." are one name. */
const normalised = (name: string): string =>
  name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, ' ')
    .trim();

/**
 * The banks of the list a webhook's bank name may mean: the one named exactly so (as normalised) when there
 * is one, otherwise those whose name contains it or is contained in it. One bank is the payer's bank; none
 * or several leave the choice to the operator.
 */
export function banksNamed(bankName: string, banks: ListedBank[]): ListedBank[] {
  const wanted = normalised(bankName);
  if (wanted === '') return [];
  const exact = banks.filter((bank) => normalised(bank.name) === wanted);
  if (exact.length > 0) return exact;
  const padded = (text: string) => ` ${text} `;
  return banks.filter((bank) => {
    const listed = normalised(bank.name);
    return listed !== '' && (padded(listed).includes(padded(wanted)) || padded(wanted).includes(padded(listed)));
  });
}
