import type { FeeTier } from '../../fees/fee-schedule';
import { formatTierSpec, parseTierSpec } from '../../fees/tier-spec';
import { formatKobo } from '../../money';
import { text, type Command } from './command';

const tierView = (tier: FeeTier) => ({
  minSend: formatKobo(tier.minSend),
  maxSend: tier.maxSend === null ? null : formatKobo(tier.maxSend),
  fee: formatKobo(tier.fee),
});

export const feeCommands: Record<string, Command> = {
  'fees:show': {
    everyCluster: true,
    usage: 'fees:show [--json]',
    options: {},
    async run(context) {
      const tiers = await context.services.fees.tiers();
      context.print(formatTierSpec(tiers), { tiers: tiers.map(tierView) });
    },
  },
  'fees:set': {
    everyCluster: true,
    usage: 'fees:set --tiers "0-4999.99:10,5000-50000:25,50000.01-:50" (naira: MIN-MAX:FEE, the last tier open-ended)',
    options: { tiers: { type: 'string' } },
    required: ['tiers'],
    async run(context) {
      const fees = context.services.fees;
      await fees.replaceTiers(parseTierSpec(text(context, 'tiers')));
      const tiers = await fees.tiers();
      context.print(`fee tiers now ${formatTierSpec(tiers)}`, { tiers: tiers.map(tierView) });
    },
  },
};
