import { createLedgerVerificationRepo } from '../../ledger/ledger-verification.repo';
import { formatKobo } from '../../money';
import { createReconciliationRunsRepo } from '../../reconciliation/reconciliation-runs.repo';
import type { Command } from './command';

export const ledgerCommands: Record<string, Command> = {
  'ledger:verify': {
    everyCluster: true,
    usage: 'ledger:verify [--json]   (exit 1 on any mismatch; accounts in deficit are counted, not errors)',
    options: {},
    async run(context) {
      const repo = createLedgerVerificationRepo(context.db);
      // With several clusters only the first cluster's platform runs compare the wallet, with every cluster's books.
      const walletCluster = context.clusters[0]!;
      const comparesWallet = context.db === walletCluster.db;
      const [counts, problems, deficits, walletRun] = await Promise.all([
        repo.counts(),
        repo.problems(),
        repo.deficits(),
        createReconciliationRunsRepo(walletCluster.db).lastWalletCheck(),
      ]);
      // The provider's side: what the last platform reconciliation saw of the wallet against the books' clearing
      // (less the fees the provider kept) and the misdirected money outside the books. A difference there is a
      // reconciliation finding (wallet_difference) to explain, not a fault of the ledger's own sums.
      const wallet = walletRun?.wallet ? { at: walletRun.finishedAt?.toISOString() ?? null, ...walletRun.wallet } : null;
      const comparedBy = comparesWallet ? '' : ` (cluster ${walletCluster.name} compares it, with the books of every cluster)`;
      const walletLine = wallet
        ? `  provider wallet at the last platform reconciliation${comparedBy} (${wallet.at}): ${wallet.walletBalance}; the books held ${wallet.heldPerBooks} and ${wallet.unassignedMisdirected} was misdirected; unexplained ${wallet.unexplained}`
        : `  provider wallet: no platform reconciliation has compared it yet${comparedBy}`;
      const deficitLines = deficits.map(
        (deficit) => `  [deficit] ${deficit.accountRef}: ${formatKobo(BigInt(deficit.balance))} since ${deficit.since.toISOString()}`,
      );
      const human = problems.length
        ? [
            `${problems.length} problem(s) in ${counts.accounts} accounts / ${counts.entries} entries:`,
            ...problems.map((problem) => `  [${problem.check}] ${problem.accountRef ?? '-'}: ${problem.detail}`),
            ...deficitLines,
            walletLine,
          ].join('\n')
        : [
            `ledger verified: ${counts.accounts} accounts, ${counts.entries} entries, no mismatch; ${deficits.length} account(s) in deficit`,
            ...deficitLines,
            walletLine,
          ].join('\n');
      context.print(human, {
        ...counts,
        problems,
        deficits: deficits.map((deficit) => ({
          accountRef: deficit.accountRef,
          balance: formatKobo(BigInt(deficit.balance)),
          since: deficit.since.toISOString(),
        })),
        wallet,
        walletComparedBy: walletCluster.name,
      });
      if (problems.length > 0) process.exitCode = 1;
    },
  },
};
