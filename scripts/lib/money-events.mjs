// Money is told by one layer: src/events/ledger-events.ts records the events of what the ledger did, from the
// ledger's results, in the operation's transaction. A module outside src/events/ that moves money never records a
// money event itself: it does not name a money event's type, and it gives recordChange no change that is told as
// one (recordChange is for what moves no money: a decision about a customer or an endpoint, a bulk payout's end, a
// refused return). Checked in the server's code (src/, activities/, workflows/); tests, benchmarks, the SDK (which
// names every event for the tenant's code) and prose may name them.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from './paths.mjs';
import { trackedFiles, trackedText } from './tracked-files.mjs';

/** The events that tell of money, as the event catalogue spells them: only the events layer records them. */
export const MONEY_EVENT_TYPES = [
  'payment.received',
  'payment.confirmed',
  'payment.reversed',
  'payment.restored',
  'payment.compensated',
  'payment.mismatch_returned',
  'payment.refund_created',
  'payment.refund_succeeded',
  'payment.refund_failed',
  'settlement.created',
  'settlement.succeeded',
  'settlement.failed',
  'settlement.refunded',
  'transfer.completed',
  'kyc.limit_exceeded',
  'kyc.hold_released',
  'kyc.hold_returned',
  'lien.placed',
  'lien.lifted',
  'lien.expired',
];

/** Where the server's code is; src/events/ within it is the layer that records money events. */
const CHECKED = ['src/', 'activities/', 'workflows/'];
const EVENTS_LAYER = 'src/events/';
const CHANGE_EVENTS = 'src/events/change-events.ts';

const MONEY_TYPE = new RegExp(`['"](?:${MONEY_EVENT_TYPES.map((type) => type.replace('.', '\\.')).join('|')})['"]`);

/**
 * The recordChange kinds told as a money event, read from change-events.ts's eventOfChange (each `case 'kind'`
 * up to the event type it tells): a kind that is told as money may not be given to recordChange outside the layer.
 */
export function moneyChangeKinds(changeEventsSource) {
  const kinds = new Set();
  const cases = /case '([a-z_]+)': \{([\s\S]*?)\n {4}\}/g;
  for (const [, kind, body] of changeEventsSource.matchAll(cases)) if (MONEY_TYPE.test(body)) kinds.add(kind);
  return kinds;
}

/** One line per place in `text` (the file `file`) that records a money event itself: `file:line: text`. */
export function moneyEventViolationsIn(file, text, changeKinds) {
  const violations = [];
  const changeKind = changeKinds.size > 0 ? new RegExp(`\\bkind: '(?:${[...changeKinds].join('|')})'`) : undefined;
  const recordsChanges = /\brecordChange\(/.test(text);
  text.split('\n').forEach((line, index) => {
    if (MONEY_TYPE.test(line) || (recordsChanges && changeKind?.test(line)))
      violations.push(`${file}:${index + 1}: ${line.trim().slice(0, 160)}`);
  });
  return violations;
}

/** One line per place outside src/events/ that records a money event itself: `file:line: text`. */
export function moneyEventViolations(root = repoRoot()) {
  const changeKinds = moneyChangeKinds(readFileSync(join(root, CHANGE_EVENTS), 'utf8'));
  return trackedFiles(root)
    .filter((file) => /\.[cm]?[jt]s$/.test(file) && CHECKED.some((folder) => file.startsWith(folder)) && !file.startsWith(EVENTS_LAYER))
    .flatMap((file) => {
      const text = trackedText(root, file);
      return text === undefined ? [] : moneyEventViolationsIn(file, text, changeKinds);
    });
}
