import { runPrepared, type Db } from '../db';
import { toOutboxEntry, type OutboxEntry, type OutboxRow } from '../jobs/outbox.repo';
import { appendFragment } from '../ledger/ledger.repo';
import { inboundEventRow, type NewInboundEvent } from './inbound-events.repo';
import type { PaymentCreditPlan } from './payment-credit';

export interface PostedPaymentAccount {
  id: string;
  tenantId: string;
  accountRef: string;
  callbackUrl: string | null;
}

export type PaymentPostingResult =
  | { kind: 'no_account' }
  | { kind: 'duplicate'; account: PostedPaymentAccount }
  | { kind: 'posted'; account: PostedPaymentAccount; jobs: OutboxEntry[] };

const jsonOf = (value: unknown): string => JSON.stringify(value, (_key, item: unknown) => (typeof item === 'bigint' ? item.toString() : item));

/**
 * A live payment webhook in ONE statement (one round trip, atomic without BEGIN/COMMIT): find the
 * account by the payer's reference, claim the request id with the event row, post the credit through
 * the ledger's append, and add the callback delivery and the workflows to start. A duplicate claims
 * nothing and so posts nothing; no account means the caller records a misdirected payment.
 */
const STATEMENT = (postingCtes: string): string => `
  WITH target AS (
    SELECT id, tenant_id, account_ref, callback_url, status FROM virtual_accounts WHERE account_ref = :alias_ref
  ), claim AS (
    INSERT INTO inbound_events
    SELECT r.*
      FROM target t,
           jsonb_populate_record(CAST(NULL AS inbound_events), CAST(:event AS jsonb) || jsonb_build_object(
             'payload', CAST(:event_payload AS jsonb),
             'tenant_id', t.tenant_id,
             'account_id', t.id,
             'received_at', now(),
             'flags', CASE WHEN t.status = 'expired' THEN jsonb_build_array('account_expired') ELSE jsonb_build_array() END)) r
    ON CONFLICT (request_id) WHERE signature_valid AND request_id IS NOT NULL DO NOTHING
    RETURNING id, received_at, account_id
  ), ${postingCtes},
  delivery AS (
    INSERT INTO webhook_deliveries (id, event_id, tenant_id, account_id, inbound_event_id, callback_url, payload, event_received_at)
    SELECT CAST(:delivery_id AS uuid), CAST(:delivery_id AS uuid), t.tenant_id, t.id, c.id, t.callback_url, :delivery_payload, c.received_at
      FROM claim c JOIN target t ON t.id = c.account_id
     WHERE t.callback_url IS NOT NULL
    RETURNING id
  ), outbox AS (
    INSERT INTO workflow_outbox (workflow_id, workflow_type, args, search_attributes)
    SELECT j.workflow_id, j.workflow_type, j.args, j.search_attributes || jsonb_build_object('TenantId', CAST(t.tenant_id AS text))
      FROM claim c JOIN target t ON t.id = c.account_id
           CROSS JOIN jsonb_to_recordset(CAST(:jobs AS jsonb)) AS j(workflow_id text, workflow_type text, args jsonb, search_attributes jsonb, needs_callback boolean)
     WHERE NOT j.needs_callback OR t.callback_url IS NOT NULL
    ON CONFLICT (workflow_id) DO NOTHING
    RETURNING workflow_id, workflow_type, args, search_attributes
  )
  SELECT t.id, t.tenant_id, t.account_ref, t.callback_url,
         EXISTS (SELECT 1 FROM claim) AS claimed,
         (SELECT count(*) FROM posting_moved) AS posted,
         (SELECT coalesce(jsonb_agg(to_jsonb(o)), '[]'::jsonb) FROM outbox o) AS jobs
    FROM (SELECT 1) AS one LEFT JOIN target t ON true`;

export function createPaymentPostingRepo(db: Db) {
  return {
    async post(aliasRef: string, event: NewInboundEvent, plan: PaymentCreditPlan): Promise<PaymentPostingResult> {
      const fragment = appendFragment('(SELECT account_id FROM claim)', plan.posting.drafts, plan.posting.totals);
      const { payload, ...row } = inboundEventRow(event);
      const jobs = [
        { job: plan.confirmationJob, needsCallback: false },
        { job: plan.deliveryJob, needsCallback: true },
      ];
      const result = await runPrepared(db, 'payment-posting', STATEMENT(fragment.ctes), {
        ...fragment.bindings,
        alias_ref: aliasRef,
        event: jsonOf(row),
        event_payload: payload,
        delivery_id: plan.delivery.id,
        delivery_payload: plan.delivery.payload,
        jobs: jsonOf(
          jobs.map(({ job, needsCallback }) => ({
            workflow_id: job.workflowId,
            workflow_type: job.workflowType,
            args: job.args,
            search_attributes: job.searchAttributes,
            needs_callback: needsCallback,
          })),
        ),
      });
      const found = result.rows[0] as {
        id: string | null;
        tenant_id: string;
        account_ref: string;
        callback_url: string | null;
        claimed: boolean;
        posted: string;
        jobs: OutboxRow[];
      };
      if (found.id === null) return { kind: 'no_account' };
      const account = { id: found.id, tenantId: found.tenant_id, accountRef: found.account_ref, callbackUrl: found.callback_url };
      if (!found.claimed) return { kind: 'duplicate', account };
      if (Number(found.posted) !== 1) throw new Error(`payment event ${event.id} was claimed but its credit was not posted`);
      // The rows as stored (with the tenant filled in, the delivery only with a callback), started as they are.
      return { kind: 'posted', account, jobs: found.jobs.map(toOutboxEntry) };
    },
  };
}
