import { createHash } from 'node:crypto';
import { nameLookupFinds } from './magic-values';

const FIRST_NAMES = [
  'ADAEZE',
  'CHINEDU',
  'NGOZI',
  'EMEKA',
  'OLUWASEUN',
  'FOLAKE',
  'BABATUNDE',
  'AISHA',
  'IBRAHIM',
  'MUSA',
  'ZAINAB',
  'TUNDE',
  'YETUNDE',
  'OBINNA',
  'CHIAMAKA',
  'KELECHI',
  'FUNMILAYO',
  'ABUBAKAR',
  'HAUWA',
  'IFEOMA',
  'SEGUN',
  'BOLANLE',
  'UCHE',
  'NKECHI',
  'FEMI',
  'AMINA',
  'USMAN',
  'HALIMA',
  'IKECHUKWU',
  'TEMITOPE',
] as const;

const SURNAMES = [
  'OKONKWO',
  'ADEYEMI',
  'BELLO',
  'OKAFOR',
  'OGUNLEYE',
  'ABDULLAHI',
  'EZE',
  'NWOSU',
  'BALOGUN',
  'OLAWALE',
  'UMAR',
  'CHUKWU',
  'ADEBAYO',
  'ONYEKA',
  'SULEIMAN',
  'OGUNDIPE',
  'NNAMDI',
  'AKINOLA',
  'DANJUMA',
  'OBI',
  'LAWAL',
  'OJO',
  'YUSUF',
  'AFOLABI',
  'MOHAMMED',
  'OKEKE',
  'BAKARE',
  'ALIYU',
  'EZEH',
  'ONUOHA',
] as const;

function pick<T>(list: readonly T[], byte: number): T {
  return list[byte % list.length] as T;
}

/** The same account number always yields the same name, as a real name enquiry would. */
export function accountHolderName(accountNumber: string): string {
  const digest = createHash('sha256').update(accountNumber).digest();
  const surname = pick(SURNAMES, digest.readUInt16BE(0));
  const first = pick(FIRST_NAMES, digest.readUInt16BE(2));
  const middle = pick(
    FIRST_NAMES.filter((name) => name !== first),
    digest.readUInt16BE(4),
  );
  return `${surname} ${first} ${middle}`;
}

/**
 * What a name enquiry finds for an account number: the name a control route gave it (null: no such account
 * any more), else nothing for the magic ending, else its generated name.
 */
export function nameAtBank(accountNames: ReadonlyMap<string, string | null>, accountNumber: string): string | null {
  if (accountNames.has(accountNumber)) return accountNames.get(accountNumber) ?? null;
  return nameLookupFinds(accountNumber) ? accountHolderName(accountNumber) : null;
}
