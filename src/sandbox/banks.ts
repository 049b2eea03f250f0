interface SandboxBank {
  code: string;
  name: string;
}

/** Real Nigerian institutions and their NIBSS codes: commercial banks 3 digits, MFBs and fintechs 6. */
export const SANDBOX_BANKS: readonly SandboxBank[] = [
  { code: '044', name: 'Access Bank' },
  { code: '023', name: 'Citibank Nigeria' },
  { code: '050', name: 'Ecobank Nigeria' },
  { code: '070', name: 'Fidelity Bank' },
  { code: '011', name: 'First Bank of Nigeria' },
  { code: '214', name: 'First City Monument Bank' },
  { code: '058', name: 'Guaranty Trust Bank' },
  { code: '301', name: 'Jaiz Bank' },
  { code: '082', name: 'Keystone Bank' },
  { code: '076', name: 'Polaris Bank' },
  { code: '101', name: 'Providus Bank' },
  { code: '221', name: 'Stanbic IBTC Bank' },
  { code: '068', name: 'Standard Chartered Bank' },
  { code: '232', name: 'Sterling Bank' },
  { code: '100', name: 'Suntrust Bank' },
  { code: '032', name: 'Union Bank of Nigeria' },
  { code: '033', name: 'United Bank for Africa' },
  { code: '215', name: 'Unity Bank' },
  { code: '035', name: 'Wema Bank' },
  { code: '057', name: 'Zenith Bank' },
  { code: '090267', name: 'Kuda Microfinance Bank' },
  { code: '090405', name: 'Moniepoint Microfinance Bank' },
  { code: '090110', name: 'VFD Microfinance Bank' },
  { code: '100004', name: 'OPay (Paycom)' },
  { code: '100033', name: 'PalmPay' },
];

const BANKS_BY_CODE = new Map(SANDBOX_BANKS.map((bank) => [bank.code, bank]));

export function findBank(code: string): SandboxBank | undefined {
  return BANKS_BY_CODE.get(code);
}
