import { randomBytes } from 'node:crypto';
import { findAccountById } from '../accounts/accounts.access';
import { setTenantWebhookSecret } from '../auth/tenants.access';
import type { Config } from '../config';
import { encryptSecret } from '../crypto';
import { encryptionContext, WEBHOOK_SECRET_COLUMN } from '../encryption/encrypted-columns';
import type { Db } from '../db';
import { ConflictError, NotFoundError } from '../errors';
import { isUuid, uuidv7 } from '../ids';
import type { Jobs } from '../contracts/jobs';
import { createOutboxRepo } from '../workflow-starts/outbox.repo';
import type { WorkflowStarter } from '../workflow-starts/workflow-starter';
import { listProcessingErrors } from '../payment-ingest/inbound-events.access';
import type { RateLimits } from '../rate-limits/rate-limits';
import { createWebhookDeliveries } from '../events/webhook-deliveries';
import { createEndpointsRepo } from './endpoints.repo';
import { createDeliveriesRepo, type DeliveryAttemptRecord, type DeliveryRecord } from './deliveries.repo';

export function createWebhooksService(deps: {
  db: Db;
  config: Pick<Config, 'DATA_ENCRYPTION_KEYRING'>;
  jobs: Jobs;
  starter: WorkflowStarter;
  /** Replays per tenant, counted here so the API and the dashboard share one limit. */
  limits: Pick<RateLimits, 'replays'>;
}) {
  const { db, config, jobs, starter, limits } = deps;
  const deliveries = createDeliveriesRepo(db);

  async function findDelivery(tenantId: string, id: string): Promise<DeliveryRecord> {
    if (!isUuid(id)) throw new NotFoundError('delivery not found');
    const delivery = await deliveries.find(tenantId, id.toLowerCase());
    if (delivery) return delivery;
    if (await deliveries.isArchived(tenantId, id.toLowerCase()))
      throw new NotFoundError('delivery archived: its month was detached from the history (see docs/scaling.md#archived-months)');
    throw new NotFoundError('delivery not found');
  }

  return {
    /** Stored encrypted and shown once; every later delivery of the tenant's accounts is signed with it. */
    async setSigningSecret(tenantId: string, secret?: string): Promise<string> {
      const chosen = secret ?? `whsec_${randomBytes(32).toString('base64url')}`;
      await setTenantWebhookSecret(
        db,
        tenantId,
        encryptSecret(config.DATA_ENCRYPTION_KEYRING, chosen, encryptionContext(WEBHOOK_SECRET_COLUMN, tenantId)),
      );
      return chosen;
    },

    async clearSigningSecret(tenantId: string): Promise<void> {
      await setTenantWebhookSecret(db, tenantId, null);
    },

    async deadLetters(tenantId: string, beforeId: string | null, limit: number): Promise<DeliveryRecord[]> {
      return deliveries.listDeadLetters(tenantId, beforeId, limit + 1);
    },

    async processingErrors(tenantId: string, beforeId: string | null, limit: number) {
      return listProcessingErrors(db, tenantId, beforeId, limit + 1);
    },

    async delivery(tenantId: string, id: string): Promise<{ delivery: DeliveryRecord; attempts: DeliveryAttemptRecord[] }> {
      const delivery = await findDelivery(tenantId, id);
      return { delivery, attempts: await deliveries.attempts(delivery.id) };
    },

    /**
     * A fresh delivery of a dead letter's exact payload, under the same event id (receivers dedup on
     * X-Event-Id), to the account's current callbackUrl (or its endpoint, as that endpoint now is).
     */
    async replay(tenantId: string, id: string): Promise<DeliveryRecord> {
      await limits.replays.consume(tenantId);
      const original = await findDelivery(tenantId, id);
      if (original.status !== 'dead_letter') throw new ConflictError('only a dead letter can be replayed');
      const replayId = uuidv7();
      let target: { accountId: string | null; endpointId: string | null; url: string; accountRef: string | null };
      if (original.endpointId) {
        const endpoint = await createEndpointsRepo(db).find(tenantId, original.endpointId);
        if (!endpoint) throw new ConflictError('the endpoint of this delivery was deleted');
        target = { accountId: null, endpointId: endpoint.id, url: endpoint.url, accountRef: null };
      } else {
        const account = original.accountId ? await findAccountById(db, original.accountId) : undefined;
        target = {
          accountId: original.accountId,
          endpointId: null,
          url: account?.callbackUrl ?? original.callbackUrl,
          accountRef: account?.accountRef ?? null,
        };
      }
      const job = jobs.webhookDelivery({ deliveryId: replayId, tenantId, accountRef: target.accountRef });
      await db.transaction(async (trx) => {
        await createWebhookDeliveries(trx).enqueue({
          id: replayId,
          eventId: original.eventId,
          tenantId,
          accountId: target.accountId,
          endpointId: target.endpointId,
          tenantEventId: original.tenantEventId,
          inboundEventId: null,
          replayOf: original.id,
          callbackUrl: target.url,
          payload: original.payload,
          eventReceivedAt: original.eventReceivedAt,
        });
        await createOutboxRepo(trx).enqueue([job]);
      });
      starter.kick([job]);
      return (await deliveries.findById(replayId))!;
    },
  };
}

export type WebhooksService = ReturnType<typeof createWebhooksService>;
