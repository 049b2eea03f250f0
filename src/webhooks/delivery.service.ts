import { findTenant } from '../auth/tenants.access';
import type { Config } from '../config';
import { decryptSecret } from '../crypto';
import { encryptionContext, WEBHOOK_SECRET_COLUMN } from '../encryption/encrypted-columns';
import type { Db, Trx } from '../db';
import { createAuditLog } from '../audit/audit-log';
import { createWebhookDeliveries } from '../events/webhook-deliveries';
import { recordChange } from '../events/change-events';
import { createDeliveriesRepo } from './deliveries.repo';
import { createEndpointsRepo } from './endpoints.repo';
import { signingSecrets } from './endpoint-secrets';
import { postJson } from './http-sender';
import { outboundSignatureHeader, outboundSignatureHeaderOf } from './outbound-signature';
import type { DeliveryAttemptResult } from '../contracts/webhook-delivery.contract';

type DeliveryConfig = Pick<
  Config,
  'DATA_ENCRYPTION_KEYRING' | 'WEBHOOK_TIMEOUT' | 'ALLOW_PRIVATE_CALLBACK_URLS' | 'WEBHOOK_ENDPOINT_DISABLE_AFTER'
>;

export class DeliveryNotFoundError extends Error {
  constructor(deliveryId: string) {
    super(`webhook delivery ${deliveryId} does not exist`);
    this.name = 'DeliveryNotFoundError';
  }
}

/** The delivery's endpoint was deleted or is disabled: its run stops without another attempt. */
export class DeliveryCancelledError extends Error {
  constructor(deliveryId: string) {
    super(`webhook delivery ${deliveryId} was cancelled`);
    this.name = 'DeliveryCancelledError';
  }
}

function isSuccess(statusCode: number | null): boolean {
  return statusCode !== null && statusCode >= 200 && statusCode < 300;
}

/** Sends one attempt of an outbound delivery and records it; the workflow owns the schedule. */
export function createWebhookDeliveryService(deps: { db: Db; config: DeliveryConfig }) {
  const { db, config } = deps;
  const deliveries = createDeliveriesRepo(db);
  const endpoints = createEndpointsRepo(db);

  /**
   * An endpoint's health after an attempt: a success clears its failing streak; a failure starts one (or
   * extends it), and a streak older than WEBHOOK_ENDPOINT_DISABLE_AFTER disables the endpoint, with an
   * audit row and a `webhook_endpoint.disabled` event to the tenant's other endpoints.
   */
  async function endpointHealth(trx: Trx, endpointId: string, at: Date, error: string | null): Promise<void> {
    const repo = createEndpointsRepo(trx);
    if (error === null) return repo.recordSuccess(endpointId, at);
    const endpoint = await repo.recordFailure(endpointId, at, error);
    if (
      !endpoint?.enabled ||
      !endpoint.failingSince ||
      at.getTime() - endpoint.failingSince.getTime() < config.WEBHOOK_ENDPOINT_DISABLE_AFTER
    )
      return;
    const reason = `every delivery failed since ${endpoint.failingSince.toISOString()} (last: ${error})`;
    if (!(await repo.disable(endpointId, reason))) return;
    await createAuditLog(trx).recordAs(
      endpoint.tenantId,
      'system',
      'webhook_endpoint.disabled',
      { type: 'webhook_endpoint', id: endpointId },
      { reason },
    );
    await recordChange(trx, {
      kind: 'endpoint_disabled',
      tenantId: endpoint.tenantId,
      endpointId,
      url: endpoint.url,
      failingSince: endpoint.failingSince,
      reason,
    });
  }

  return {
    /** HTTP failures are results, not errors; only a database problem throws (and is retried). */
    async send(deliveryId: string): Promise<DeliveryAttemptResult> {
      const delivery = await deliveries.findById(deliveryId);
      if (!delivery) throw new DeliveryNotFoundError(deliveryId);
      if (delivery.status === 'cancelled') throw new DeliveryCancelledError(deliveryId);
      const headers: Record<string, string> = {
        'Content-Type': 'application/json',
        'User-Agent': 'nuban-ledger-webhooks/1',
        'X-Event-Id': delivery.eventId,
      };
      const now = new Date();
      let target = delivery.callbackUrl;
      if (delivery.endpointId) {
        const endpoint = await endpoints.findById(delivery.endpointId);
        if (!endpoint || endpoint.deletedAt) {
          // Dispatched as the endpoint was being deleted: cancelled like the rest of its deliveries.
          await createWebhookDeliveries(db).cancelEndpointDeliveries(delivery.endpointId);
          throw new DeliveryCancelledError(deliveryId);
        }
        if (!endpoint.enabled) {
          // Disabled after the delivery was queued (by the tenant, or for failing): it receives nothing
          // more. Re-enabling does not revive it; recovering the endpoint's events re-sends them.
          await createWebhookDeliveries(db).cancelDelivery(deliveryId, 'not sent: the endpoint is disabled');
          throw new DeliveryCancelledError(deliveryId);
        }
        // The endpoint as it is now: a changed URL or a rotated secret applies to deliveries still under way.
        target = endpoint.url;
        headers['X-Service-Signature'] = outboundSignatureHeaderOf(
          signingSecrets(config.DATA_ENCRYPTION_KEYRING, endpoint, now),
          delivery.payload,
          Math.floor(now.getTime() / 1000),
        );
      } else {
        const tenant = await findTenant(db, delivery.tenantId);
        if (tenant?.webhook_secret_enc) {
          const secret = decryptSecret(
            config.DATA_ENCRYPTION_KEYRING,
            tenant.webhook_secret_enc,
            encryptionContext(WEBHOOK_SECRET_COLUMN, tenant.id),
          );
          headers['X-Service-Signature'] = outboundSignatureHeader(secret, delivery.payload, Math.floor(now.getTime() / 1000));
        }
      }
      const attemptedAt = now.toISOString();
      const result = await postJson(target, delivery.payload, headers, {
        timeoutMs: config.WEBHOOK_TIMEOUT,
        allowPrivate: config.ALLOW_PRIVATE_CALLBACK_URLS,
      });
      const ok = isSuccess(result.statusCode) && result.error === null;
      const error = ok ? null : (result.error ?? `HTTP ${result.statusCode}`);
      return { ok, statusCode: result.statusCode, error, durationMs: result.durationMs, attemptedAt };
    },

    /** `retryInMs` null means no further attempt: a failure then makes the delivery a dead letter. */
    async record(deliveryId: string, attemptNo: number, result: DeliveryAttemptResult, retryInMs: number | null): Promise<void> {
      const attemptedAt = new Date(result.attemptedAt);
      const status = result.ok ? 'succeeded' : retryInMs === null ? 'dead_letter' : 'retrying';
      await db.transaction(async (trx) => {
        const recorded = await createDeliveriesRepo(trx).recordAttempt(deliveryId, {
          attemptNo,
          attemptedAt,
          statusCode: result.statusCode,
          error: result.error,
          durationMs: result.durationMs,
          status,
          nextRetryAt: status === 'retrying' ? new Date(Date.now() + retryInMs!) : null,
        });
        if (recorded?.endpointId)
          await endpointHealth(trx, recorded.endpointId, attemptedAt, result.ok ? null : (result.error ?? 'failed'));
      });
    },
  };
}

export type WebhookDeliveryService = ReturnType<typeof createWebhookDeliveryService>;
