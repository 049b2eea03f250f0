import { DESTINATIONS, PAYMENTS } from './catalogue';
import { Random } from './prng';

export const PROCESS_FAULTS = ['kill-worker', 'kill-api', 'restart-temporal', 'restart-postgres', 'provider-faults'] as const;
export type ProcessFault = (typeof PROCESS_FAULTS)[number];

/** Operator actions, and the provider's after-the-fact events (a redelivery, a late refund, a late success, its tokens expiring). */
export const OPERATOR_ACTIONS = [
  'terminate-settlement',
  'terminate-batch',
  'settle-stuck',
  'redeliver',
  'transfer-refund',
  'payer-refund',
  'late-success',
  'resolve-finding',
  'expire-tokens',
] as const;
export type OperatorAction = (typeof OPERATOR_ACTIONS)[number];

/** How a dynamic account's one payment compares with what it expects: under, over, exact, or after the account expired. */
export const DYNAMIC_VARIANTS = ['under', 'over', 'exact', 'after_expiry'] as const;
export type DynamicVariant = (typeof DYNAMIC_VARIANTS)[number];

/** A balance sweep set on a tenant's sweep account: over a threshold (checked every minute), daily at the next minute, or deleted. */
export const SWEEP_CHANGES = ['whenAbove', 'dailyAt', 'delete'] as const;
export type SweepChange = (typeof SWEEP_CHANGES)[number];

/** What becomes of a payout held for approval: approved or rejected by a second dashboard user, or left to expire. */
export const APPROVAL_DECISIONS = ['approve', 'reject', 'expire'] as const;
export type ApprovalDecision = (typeof APPROVAL_DECISIONS)[number];

/** A freeze closes its account to payouts and transfers out, or holds the payments to it. */
export const FREEZE_SIDES = ['debits', 'credits'] as const;

/** The tenant whose approval policy holds payouts at or above APPROVAL_THRESHOLD_KOBO (the other has none). */
export const APPROVAL_TENANT = 1;
export const APPROVAL_THRESHOLD_KOBO = 5_000_00;

export interface BatchItem {
  account: number;
  destination: number;
  kobo: number;
}

export type Op =
  | { index: number; atMs: number; kind: 'settle'; account: number; destination: number; kobo: number }
  /**
   * A payment into a new account of the tenant (failed at the provider, or not) and, as soon as it is credited
   * provisionally, `transfers` transfers of its parts to the tenant's first account, all at once.
   */
  | { index: number; atMs: number; kind: 'race'; tenant: number; fails: boolean; kobo: number; transfers: number }
  /** A settlement batch of the tenant's, cancelled `cancelAfterMs` after it was accepted (null: never). */
  | { index: number; atMs: number; kind: 'batch'; tenant: number; items: BatchItem[]; cancelAfterMs: number | null }
  /** A dynamic account expecting `kobo` (gross), and one payment into it. */
  | {
      index: number;
      atMs: number;
      kind: 'dynamic';
      tenant: number;
      variant: DynamicVariant;
      onMismatch: 'return' | 'credit_and_flag';
      kobo: number;
    }
  | { index: number; atMs: number; kind: 'sweep'; tenant: number; change: SweepChange; keepNaira: number }
  /** A payout of the approval tenant at or above its policy's amount: it waits, its money reserved. */
  | { index: number; atMs: number; kind: 'approval'; account: number; kobo: number; decision: ApprovalDecision }
  /** A second dashboard user approves or rejects the payout operation `target` made (null: it made none). */
  | { index: number; atMs: number; kind: 'decide'; target: number; decision: 'approve' | 'reject' }
  /**
   * A lien of `percent` of what the account may spend, lifted `liftAfterMs` after it was placed or left to expire
   * after `expiresInSeconds`; as soon as it stands, `payouts` payouts of `payoutPercent` of what is left each, at once.
   */
  | {
      index: number;
      atMs: number;
      kind: 'lien';
      account: number;
      percent: number;
      liftAfterMs: number | null;
      expiresInSeconds: number | null;
      payouts: number;
      payoutPercent: number;
    }
  /** The tenant's freeze account frozen for one side for `holdMs`: payouts from it (debits) or a payment to it (credits) meanwhile. */
  | { index: number; atMs: number; kind: 'freeze'; tenant: number; side: (typeof FREEZE_SIDES)[number]; holdMs: number; kobo: number }
  /** `payouts` payouts at once to the tenant's velocity destination, under its rule of three payouts a window. */
  | { index: number; atMs: number; kind: 'velocity'; tenant: number; payouts: number; kobo: number }
  | { index: number; atMs: number; kind: 'pay'; account: number; payment: number; kobo: number }
  /** Between two accounts of one tenant. */
  | { index: number; atMs: number; kind: 'transfer'; from: number; to: number; kobo: number }
  | { index: number; atMs: number; kind: 'reconcile'; via: 'api' | 'cli'; tenant: number }
  /** `target`: the earlier op it acts on (null: none fits yet); `pick`: which one of many (a batch, a finding). */
  | { index: number; atMs: number; kind: OperatorAction; target: number | null; pick: number; outcome: 'SUCCESS' | 'PAYMENT_FAILED' }
  | { index: number; atMs: number; kind: ProcessFault; downMs: number };

export interface ScheduleOptions {
  seed: number;
  minutes: number;
  tenants: number;
  accountsPerTenant: number;
}

/** How far back a terminated settlement is drawn from. */
const RECENT_SETTLEMENTS = 4;

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
type Draft = DistributiveOmit<Op, 'index'>;

/**
 * The whole run from its seed alone: business operations a few a second, operator actions among them,
 * and a process fault every 15 to 40 seconds (each over before the next). An operator action's target
 * is an earlier operation, chosen here, so the same seed acts on the same settlement or payment.
 */
export function buildSchedule(options: ScheduleOptions): Op[] {
  const random = new Random(options.seed);
  const durationMs = Math.round(options.minutes * 60_000);
  const accounts = options.tenants * options.accountsPerTenant;
  const nextDestination = random.deck(DESTINATIONS.length);
  const nextPayment = random.deck(PAYMENTS.length);
  const nextFault = random.deck(PROCESS_FAULTS.length);
  const nextAction = random.deck(OPERATOR_ACTIONS.length);
  const nextVariant = random.deck(DYNAMIC_VARIANTS.length);
  const nextSweepChange = random.deck(SWEEP_CHANGES.length);
  // Batch items pay only destinations that end: one stuck for days would hold the tenant's batch cap for ever.
  const nextDecision = random.deck(APPROVAL_DECISIONS.length);
  const nextFreezeSide = random.deck(FREEZE_SIDES.length);
  const endingDestinations = DESTINATIONS.flatMap((destination, index) => (destination.waits ? [] : [index]));

  const business: Draft[] = [];
  /** A decide operation's position in `business` → the approval operation it decides. */
  const decisions = new Map<number, Draft>();
  for (let atMs = random.int(200, 800); atMs < durationMs - 5_000; atMs += random.int(300, 1_500)) {
    const kind = random.weighted({
      settle: 29,
      pay: 33,
      transfer: 8,
      race: 4,
      batch: 4,
      dynamic: 6,
      sweep: 2,
      reconcile: 4,
      operator: 14,
      approval: 4,
      lien: 3,
      freeze: 2,
      velocity: 2,
    });
    if (kind === 'settle')
      business.push({
        atMs,
        kind,
        account: random.int(0, accounts - 1),
        destination: nextDestination(),
        kobo: random.int(100, 2_000) * 100,
      });
    else if (kind === 'pay')
      business.push({
        atMs,
        kind,
        account: random.int(0, accounts - 1),
        payment: nextPayment(),
        kobo: random.int(100, 5_000) * 100 + random.int(0, 99),
      });
    else if (kind === 'transfer') {
      const from = random.int(0, accounts - 1);
      const first = from - (from % options.accountsPerTenant);
      const to = first + ((from - first + random.int(1, options.accountsPerTenant - 1)) % options.accountsPerTenant);
      business.push({ atMs, kind, from, to, kobo: random.int(1, 3_000) * 100 + random.int(0, 99) });
    } else if (kind === 'race')
      business.push({
        atMs,
        kind,
        tenant: random.int(0, options.tenants - 1),
        fails: random.chance(0.75),
        kobo: random.int(1_000, 20_000) * 100,
        transfers: random.int(3, 8),
      });
    else if (kind === 'batch') {
      const tenant = random.int(0, options.tenants - 1);
      business.push({
        atMs,
        kind,
        tenant,
        items: Array.from({ length: random.int(3, 10) }, () => ({
          account: tenant * options.accountsPerTenant + random.int(0, options.accountsPerTenant - 1),
          destination: random.pick(endingDestinations),
          kobo: random.int(100, 1_000) * 100,
        })),
        cancelAfterMs: random.chance(0.5) ? random.int(0, 3_000) : null,
      });
    } else if (kind === 'dynamic')
      business.push({
        atMs,
        kind,
        tenant: random.int(0, options.tenants - 1),
        variant: DYNAMIC_VARIANTS[nextVariant()]!,
        onMismatch: random.chance(0.75) ? 'return' : 'credit_and_flag',
        kobo: random.int(500, 5_000) * 100,
      });
    else if (kind === 'sweep')
      business.push({
        atMs,
        kind,
        tenant: random.int(0, options.tenants - 1),
        change: SWEEP_CHANGES[nextSweepChange()]!,
        keepNaira: random.int(10_000, 30_000),
      });
    else if (kind === 'approval') {
      const decision = APPROVAL_DECISIONS[nextDecision()]!;
      const held: Draft = {
        atMs,
        kind,
        account: APPROVAL_TENANT * options.accountsPerTenant + random.int(0, options.accountsPerTenant - 1),
        kobo: APPROVAL_THRESHOLD_KOBO + random.int(0, 10_000) * 100,
        decision,
      };
      business.push(held);
      // Decided at a random time while it still waits (the policy's expiry is longer than the longest delay).
      const decideAtMs = Math.min(atMs + random.int(500, 30_000), durationMs - 1_000);
      if (decision !== 'expire') decisions.set(business.push({ atMs: decideAtMs, kind: 'decide', target: -1, decision }) - 1, held);
    } else if (kind === 'lien') {
      const expires = random.chance(0.5);
      business.push({
        atMs,
        kind,
        account: random.int(0, accounts - 1),
        percent: random.int(10, 90),
        liftAfterMs: expires ? null : random.int(0, 3_000),
        expiresInSeconds: expires ? random.int(3, 20) : null,
        payouts: random.int(4, 6),
        payoutPercent: random.int(20, 60),
      });
    } else if (kind === 'freeze')
      business.push({
        atMs,
        kind,
        tenant: random.int(0, options.tenants - 1),
        side: FREEZE_SIDES[nextFreezeSide()]!,
        holdMs: random.int(1_000, 4_000),
        kobo: random.int(100, 2_000) * 100,
      });
    else if (kind === 'velocity')
      business.push({
        atMs,
        kind,
        tenant: random.int(0, options.tenants - 1),
        payouts: random.int(4, 6),
        kobo: random.int(100, 2_000) * 100,
      });
    else if (kind === 'reconcile')
      business.push({ atMs, kind, via: random.chance(0.5) ? 'api' : 'cli', tenant: random.int(0, options.tenants - 1) });
    else
      business.push({
        atMs,
        kind: OPERATOR_ACTIONS[nextAction()]!,
        target: null,
        pick: random.int(0, 1_000_000),
        outcome: random.chance(0.5) ? 'SUCCESS' : 'PAYMENT_FAILED',
      });
  }
  const faults: Draft[] = [];
  for (let atMs = random.int(10_000, 20_000); atMs < durationMs - 15_000; atMs += random.int(15_000, 40_000)) {
    faults.push({ atMs, kind: PROCESS_FAULTS[nextFault()]!, downMs: random.int(2_000, 8_000) });
  }

  const decided = new Map([...decisions].map(([position, held]) => [business[position]!, held]));
  const sorted = [...business, ...faults].sort((a, b) => a.atMs - b.atMs);
  const indexOf = new Map(sorted.map((draft, index) => [draft, index]));
  const ops = sorted.map((draft, index) => {
    const held = decided.get(draft);
    return (held ? { ...draft, index, target: indexOf.get(held)! } : { ...draft, index }) as Op;
  });
  // Targets: an earlier settlement or payment that suits the action, drawn among those before it.
  for (const op of ops) {
    if (!(OPERATOR_ACTIONS as readonly string[]).includes(op.kind)) continue;
    const action = op as Extract<Op, { kind: OperatorAction }>;
    const all = ops.slice(0, op.index).filter((earlier) => suits(action.kind, earlier));
    // A settlement is terminated while it is likely still running: one of the last few asked for.
    const fits = action.kind === 'terminate-settlement' ? all.slice(-RECENT_SETTLEMENTS) : all;
    action.target = fits.length ? fits[action.pick % fits.length]!.index : null;
  }
  return ops;
}

/** Whether an earlier operation is one `action` can act on. */
function suits(action: OperatorAction, op: Op): boolean {
  switch (action) {
    case 'terminate-settlement':
      return op.kind === 'settle';
    case 'settle-stuck':
      return op.kind === 'settle' && DESTINATIONS[op.destination]!.waits;
    case 'transfer-refund':
      return op.kind === 'settle' && !DESTINATIONS[op.destination]!.waits;
    case 'redeliver':
      return op.kind === 'pay' && !PAYMENTS[op.payment]!.body.suppressWebhook;
    case 'payer-refund':
      return op.kind === 'pay' && !PAYMENTS[op.payment]!.misdirected && Object.keys(PAYMENTS[op.payment]!.body).length === 0;
    case 'late-success':
      return op.kind === 'pay' && PAYMENTS[op.payment]!.body.status === 'PAYMENT_FAILED';
    case 'terminate-batch':
    case 'resolve-finding':
    case 'expire-tokens':
      return false;
  }
}

export function describeOp(op: Op): string {
  switch (op.kind) {
    case 'settle':
      return `#${op.index} settle ${op.kobo / 100} from account ${op.account} to ${DESTINATIONS[op.destination]!.accountNumber} (${DESTINATIONS[op.destination]!.what})`;
    case 'pay':
      return `#${op.index} pay ${op.kobo / 100} to account ${op.account} (${PAYMENTS[op.payment]!.what})`;
    case 'transfer':
      return `#${op.index} transfer ${op.kobo / 100} from account ${op.from} to account ${op.to}`;
    case 'race':
      return `#${op.index} race: pay ${op.kobo / 100} (${op.fails ? 'PAYMENT_FAILED' : 'paid'}) into a new account of tenant ${op.tenant}, ${op.transfers} transfers of it at once`;
    case 'batch':
      return `#${op.index} batch of ${op.items.length} items for tenant ${op.tenant}${op.cancelAfterMs === null ? '' : `, cancelled after ${op.cancelAfterMs} ms`}: ${op.items.map((item) => `${item.kobo / 100} from account ${item.account} to ${DESTINATIONS[item.destination]!.accountNumber}`).join('; ')}`;
    case 'dynamic':
      return `#${op.index} dynamic account of tenant ${op.tenant} expecting ${op.kobo / 100} (exact, ${op.onMismatch}), paid ${op.variant}`;
    case 'sweep':
      return `#${op.index} sweep of tenant ${op.tenant}: ${op.change}${op.change === 'delete' ? '' : ` keeping ${op.keepNaira}`}`;
    case 'approval':
      return `#${op.index} payout of ${op.kobo / 100} from account ${op.account} held for approval, to ${op.decision === 'expire' ? 'expire' : op.decision === 'approve' ? 'be approved' : 'be rejected'}`;
    case 'decide':
      return `#${op.index} ${op.decision} the payout of #${op.target}`;
    case 'lien':
      return `#${op.index} lien of ${op.percent}% of what account ${op.account} may spend, ${op.liftAfterMs === null ? `expiring after ${op.expiresInSeconds} s` : `lifted after ${op.liftAfterMs} ms`}; ${op.payouts} payouts of ${op.payoutPercent}% of what is left at once`;
    case 'freeze':
      return `#${op.index} freeze tenant ${op.tenant}'s freeze account for ${op.side} for ${op.holdMs} ms, ${op.side === 'debits' ? 'payouts' : 'a payment'} of ${op.kobo / 100} meanwhile`;
    case 'velocity':
      return `#${op.index} ${op.payouts} payouts of ${op.kobo / 100} at once to tenant ${op.tenant}'s velocity destination`;
    case 'reconcile':
      return `#${op.index} reconcile via ${op.via}${op.via === 'api' ? ` for tenant ${op.tenant}` : ' (platform)'}`;
    default:
      return 'target' in op
        ? `#${op.index} ${op.kind}${op.target === null ? '' : ` of #${op.target}`}`
        : `#${op.index} ${op.kind} for ${op.downMs} ms`;
  }
}
