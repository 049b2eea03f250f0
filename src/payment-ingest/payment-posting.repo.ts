import type { DbOrTrx } from '../db';
import { outboxPriority, toOutboxEntry, type OutboxEntry, type OutboxRow } from '../workflow-starts/outbox.repo';
import type { PostedCredits } from '../ledger/posting-engine';
import type { EventedLedger } from '../events/ledger-events';
import { paymentCreditRow } from '../ledger/postings';
import { tenantHasCreditRulesSql } from '../velocity-rules/velocity-rules.access';
import { inboundEventRow, type NewInboundEvent } from './inbound-events.repo';
import type { PaymentCreditPlan } from './payment-credit';

interface PostedPaymentAccount {
  id: string;
  tenantId: string;
  accountRef: string;
  callbackUrl: string | null;
}

export type PaymentPostingResult =
  | { kind: 'no_account' }
  | { kind: 'duplicate'; account: PostedPaymentAccount }
  /** Its tenant has velocity rules over credits: nothing was claimed or posted; it is to be judged on its own (postJudged). */
  | { kind: 'to_judge'; account: PostedPaymentAccount }
  | { kind: 'posted'; account: PostedPaymentAccount; jobs: OutboxEntry[] };

/** One payment webhook to post: the account its payer named, its event row and what its credit becomes. */
export interface PaymentToPost {
  aliasRef: string;
  event: NewInboundEvent;
  plan: PaymentCreditPlan;
  /**
   * The verdict of the tenant's credit rules on it, judged under the account's locks (see postJudged): the message of
   * the rule that holds it whole, or null when none does. Without it, a payment to a tenant with credit rules is not
   * posted but answered `to_judge`.
   */
  judged?: { velocityNote: string | null };
}

const jsonOf = (value: unknown): string =>
  JSON.stringify(value, (_key, item: unknown) => (typeof item === 'bigint' ? item.toString() : item));

/**
 * Live payment webhooks, to any accounts, in ONE statement (one round trip, atomic without BEGIN/COMMIT):
 * find the accounts by the payers' references, claim each request id (its key in inbound_event_request_keys, which
 * holds across the events' months) and write the event row of each claimed, have the ledger
 * post a credit for every event claimed (in arrival order per account, under one lock of each account row,
 * taken in id order), queue each credit for a batch confirmation, and add the workflow that delivers its callback
 * (the ledger's events layer adds the delivery, its `payment.received` event for the tenant's endpoints and, when part
 * of it is held, its `kyc.limit_exceeded`). An
 * event whose request id is already claimed (earlier, or by an earlier copy in the
 * same group) claims nothing and so posts nothing; an event naming no account claims nothing either.
 * Events are claimed in request-id order and all of them before any account is locked, so two statements
 * racing over the same redelivered ids, or over the same accounts, wait for each other, never in a cycle.
 * A payment to a tenant with velocity rules over credits (one index probe per account) claims nothing unless it comes
 * judged: its statement's snapshot could not see a credit committed while it waited for the account's lock, so it is
 * judged and posted on its own, in a transaction that takes the locks before reading the rules' windows.
 */
const STATEMENT_PARTS = {
  before: `items AS (
    SELECT * FROM jsonb_to_recordset(CAST(:items AS jsonb)) AS i(
      ord int, alias_ref text, event jsonb, event_payload text, delivery_id uuid, delivery_payload text, event_record_id uuid, hold_event_id uuid, jobs jsonb, entry jsonb,
      judged boolean, velocity_note text)
  ), target AS (
    SELECT id, tenant_id, account_ref, callback_url, status, amount_policy,
           ${tenantHasCreditRulesSql('v.tenant_id')} AS credit_rules
      FROM virtual_accounts v WHERE account_ref IN (SELECT alias_ref FROM items)
  ), claim_key AS (
    INSERT INTO inbound_event_request_keys (request_id, tenant_id, event_id, created_at)
    SELECT i.event->>'request_id', t.tenant_id, CAST(i.event->>'id' AS uuid), now()
      FROM (SELECT * FROM items ORDER BY event->>'request_id', ord) i JOIN target t ON t.account_ref = i.alias_ref
     WHERE (i.judged OR NOT t.credit_rules) AND i.event->>'request_id' IS NOT NULL
    ON CONFLICT (request_id) DO NOTHING
    RETURNING event_id
  ), claim AS (
    INSERT INTO inbound_events
    SELECT r.*
      FROM items i JOIN target t ON t.account_ref = i.alias_ref
           CROSS JOIN LATERAL jsonb_populate_record(CAST(NULL AS inbound_events), i.event || jsonb_build_object(
             'payload', CAST(i.event_payload AS jsonb),
             'tenant_id', t.tenant_id,
             'account_id', t.id,
             'received_at', now(),
             'created_at', now(),
             'flags', CASE WHEN t.status = 'expired' THEN jsonb_build_array('account_expired') ELSE jsonb_build_array() END)) r
     WHERE (i.judged OR NOT t.credit_rules)
       AND (i.event->>'request_id' IS NULL OR CAST(i.event->>'id' AS uuid) IN (SELECT event_id FROM claim_key))
    RETURNING id, account_id, received_at
  ), claimed AS (
    SELECT i.*, c.account_id, c.received_at, row_number() OVER (PARTITION BY c.account_id ORDER BY i.ord) AS position
      FROM items i JOIN claim c ON c.id = CAST(i.event->>'id' AS uuid)
  )`,
  credits: 'claimed',
  // The ledger's events layer adds each credit's callback delivery, its payment.received and its kyc.limit_exceeded.
  told: { accounts: 'target' },
  after: (posted: PostedCredits) => `queued AS (
    -- Each credit as posted, with its own posting time: its confirmation window counts from it.
    INSERT INTO confirmation_claims (entry_id, tenant_id, account_ref, provider_txn_ref, posted_at)
    SELECT p.id, t.tenant_id, t.account_ref, p.provider_txn_ref, p.created_at
      FROM ${posted.entries} p JOIN target t ON t.id = p.account_id
    RETURNING entry_id
  ), outbox AS (
    INSERT INTO workflow_outbox (workflow_id, workflow_type, args, search_attributes, tenant_id, priority)
    SELECT j.workflow_id, j.workflow_type, j.args, j.search_attributes || jsonb_build_object('TenantId', CAST(t.tenant_id AS text)), t.tenant_id, j.priority
      FROM claimed c JOIN target t ON t.id = c.account_id
           CROSS JOIN jsonb_to_recordset(c.jobs) AS j(workflow_id text, workflow_type text, args jsonb, search_attributes jsonb, priority smallint, needs_callback boolean)
     WHERE NOT j.needs_callback OR t.callback_url IS NOT NULL
    ON CONFLICT (workflow_id) DO NOTHING
    RETURNING workflow_id, workflow_type, args, search_attributes
  )`,
  select: (
    posted: PostedCredits,
  ) => `SELECT (SELECT coalesce(jsonb_agg(jsonb_build_object('id', t.id, 'tenant_id', t.tenant_id, 'account_ref', t.account_ref, 'callback_url', t.callback_url)), '[]'::jsonb)
            FROM target t) AS accounts,
         (SELECT coalesce(jsonb_agg(CAST(c.event->>'id' AS uuid)), '[]'::jsonb) FROM claimed c) AS claimed_event_ids,
         (SELECT coalesce(jsonb_agg(CAST(i.event->>'id' AS uuid)), '[]'::jsonb)
            FROM items i JOIN target t ON t.account_ref = i.alias_ref WHERE t.credit_rules AND NOT i.judged) AS to_judge_event_ids,
         (SELECT count(*) FROM ${posted.entries}) AS posted,
         (SELECT count(*) FROM queued) AS queued,
         (SELECT coalesce(jsonb_agg(to_jsonb(o)), '[]'::jsonb) FROM outbox o) AS jobs`,
};

interface GroupRow {
  accounts: Array<{ id: string; tenant_id: string; account_ref: string; callback_url: string | null }>;
  claimed_event_ids: string[];
  to_judge_event_ids: string[];
  posted: string;
  queued: string;
  jobs: OutboxRow[];
}

export function createPaymentPostingRepo(db: DbOrTrx, ledger: Pick<EventedLedger, 'creditPaymentsAmong'>) {
  return {
    /** Posts payments, to whichever accounts they name, all in one statement; one result per payment, in order. */
    async postGroup(payments: PaymentToPost[]): Promise<PaymentPostingResult[]> {
      const items = payments.map(({ aliasRef, event, plan, judged }, index) => {
        const { payload, ...row } = inboundEventRow(event);
        const entry = paymentCreditRow(plan.posting);
        return {
          ord: index + 1,
          alias_ref: aliasRef,
          event: row,
          event_payload: payload,
          delivery_id: plan.delivery.id,
          delivery_payload: plan.delivery.payload,
          event_record_id: plan.eventId,
          hold_event_id: plan.limitEventId,
          entry,
          judged: judged !== undefined,
          velocity_note: judged?.velocityNote ?? null,
          jobs: [{ job: plan.deliveryJob, needsCallback: true }].map(({ job, needsCallback }) => ({
            workflow_id: job.workflowId,
            workflow_type: job.workflowType,
            args: job.args,
            search_attributes: job.searchAttributes,
            priority: outboxPriority(job.workflowType),
            needs_callback: needsCallback,
          })),
        };
      });
      const result = await ledger.creditPaymentsAmong(db, 'payment-posting-group', STATEMENT_PARTS, { items: jsonOf(items) });
      const found = result.rows[0] as GroupRow;
      const claimed = new Set(found.claimed_event_ids);
      const toJudge = new Set(found.to_judge_event_ids);
      if (Number(found.posted) !== claimed.size || Number(found.queued) !== claimed.size) {
        throw new Error(
          `${claimed.size} payment events were claimed but ${found.posted} credits were posted and ${found.queued} queued for confirmation`,
        );
      }
      const accounts = new Map(
        found.accounts.map((row) => [
          row.account_ref,
          { id: row.id, tenantId: row.tenant_id, accountRef: row.account_ref, callbackUrl: row.callback_url },
        ]),
      );
      // The rows as stored (with the tenant filled in, the delivery only with a callback), started as they are.
      const jobs = new Map(found.jobs.map((row) => [row.workflow_id, toOutboxEntry(row)]));
      return payments.map(({ aliasRef, event, plan }): PaymentPostingResult => {
        const account = accounts.get(aliasRef);
        if (!account) return { kind: 'no_account' };
        if (toJudge.has(event.id)) return { kind: 'to_judge', account };
        if (!claimed.has(event.id)) return { kind: 'duplicate', account };
        const mine = jobs.get(plan.deliveryJob.workflowId);
        return { kind: 'posted', account, jobs: mine ? [mine] : [] };
      });
    },
  };
}
