import { createLedgerVerificationRepo } from '../../ledger/ledger-verification.repo';
import { formatKobo } from '../../money';
import type { Command } from './command';

export const ledgerCommands: Record<string, Command> = {
  'ledger:verify': {
    usage: 'ledger:verify [--json]   (exit 1 on any mismatch; accounts in deficit are counted, not errors)',
    options: {},
    async run(context) {
      const repo = createLedgerVerificationRepo(context.db);
      const [counts, problems, deficits] = await Promise.all([repo.counts(), repo.problems(), repo.deficits()]);
      const deficitLines = deficits.map(
        (deficit) => `  [deficit] ${deficit.accountRef}: ${formatKobo(BigInt(deficit.balance))} since ${deficit.since.toISOString()}`,
      );
      const human = problems.length
        ? [
            `${problems.length} problem(s) in ${counts.accounts} accounts / ${counts.entries} entries:`,
            ...problems.map((problem) => `  [${problem.check}] ${problem.accountRef ?? '-'}: ${problem.detail}`),
            ...deficitLines,
          ].join('\n')
        : [
            `ledger verified: ${counts.accounts} accounts, ${counts.entries} entries, no mismatch; ${deficits.length} account(s) in deficit`,
            ...deficitLines,
          ].join('\n');
      context.print(human, {
        ...counts,
        problems,
        deficits: deficits.map((deficit) => ({
          accountRef: deficit.accountRef,
          balance: formatKobo(BigInt(deficit.balance)),
          since: deficit.since.toISOString(),
        })),
      });
      if (problems.length > 0) process.exitCode = 1;
    },
  },
};
