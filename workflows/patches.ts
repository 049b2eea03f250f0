/**
 * Patch ids for `patched()`: each marks a change of a workflow's commands that runs already in flight
 * must not see (docs/workflows.md, "Changing a workflow while runs are in flight"). A patch lives until every run
 * started before it has closed; then it becomes `deprecatePatch(id)` for one release, then goes.
 */

/*
 * Deprecated: no run started before these changes is open, so their old paths are gone. Runs in flight
 * recorded their markers, which Temporal replays only against a `patched()` or `deprecatePatch()` call of
 * the same id; the calls go (with these ids) in the release after this one, when every run open now has
 * closed and new runs record only deprecated markers, which replay without the call.
 */

/** webhookDeliveryWorkflow: sendWebhook is a normal activity (it was local). */
export const WEBHOOK_SEND_AS_ACTIVITY = 'webhook-send-as-activity';

/** convergenceSweepWorkflow: after the outbox, the credits of stopped confirmations go back in the queue. */
export const SWEEP_RESTARTS_CONFIRMATIONS = 'sweep-restarts-confirmations';

/** convergenceSweepWorkflow: after the confirmations, restart settlements whose run stopped while they are open. */
export const SWEEP_RESTARTS_SETTLEMENTS = 'sweep-restarts-settlements';

/** settlementWorkflow: a refund's signal that arrives as the refund watch runs out is still checked. */
export const REFUND_NEWS_AT_WATCH_END = 'refund-news-at-watch-end';

/** convergenceSweepWorkflow: after the settlements, look up again the settlement references the ledger failed or refunded. */
export const SWEEP_WATCHES_SETTLEMENT_REFERENCES = 'sweep-watches-settlement-references';

/** settlementWorkflow: an attempt undecided past its overdue clock raises an alert finding. */
export const SETTLEMENT_OVERDUE_ALERT = 'settlement-overdue-alert';

/** settlementWorkflow: the lookups after a probe go on at the back-off reached before it. */
export const SETTLEMENT_PROBE_KEEPS_BACKOFF = 'settlement-probe-keeps-backoff';
