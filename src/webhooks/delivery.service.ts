import { findTenant } from '../auth/tenants.access';
import type { Config } from '../config';
import { decryptSecret } from '../crypto';
import { encryptionContext, WEBHOOK_SECRET_COLUMN } from '../encryption/encrypted-columns';
import type { Db } from '../db';
import { createDeliveriesRepo } from './deliveries.repo';
import { postJson } from './http-sender';
import { outboundSignatureHeader } from './outbound-signature';
import type { DeliveryAttemptResult } from '../contracts/webhook-delivery.contract';

type DeliveryConfig = Pick<Config, 'DATA_ENCRYPTION_KEYRING' | 'WEBHOOK_TIMEOUT' | 'ALLOW_PRIVATE_CALLBACK_URLS'>;

export class DeliveryNotFoundError extends Error {
  constructor(deliveryId: string) {
    super(`webhook delivery ${deliveryId} does not exist`);
    this.name = 'DeliveryNotFoundError';
  }
}

function isSuccess(statusCode: number | null): boolean {
  return statusCode !== null && statusCode >= 200 && statusCode < 300;
}

/** Sends one attempt of an outbound delivery and records it; the workflow owns the schedule. */
export function createWebhookDeliveryService(deps: { db: Db; config: DeliveryConfig }) {
  const { db, config } = deps;
  const deliveries = createDeliveriesRepo(db);

  return {
    /** HTTP failures are results, not errors; only a database problem throws (and is retried). */
    async send(deliveryId: string): Promise<DeliveryAttemptResult> {
      const delivery = await deliveries.findById(deliveryId);
      if (!delivery) throw new DeliveryNotFoundError(deliveryId);
      const tenant = await findTenant(db, delivery.tenantId);
      const headers: Record<string, string> = {
        'Content-Type': 'application/json',
        'User-Agent': 'nuban-ledger-webhooks/1',
        'X-Event-Id': delivery.eventId,
      };
      if (tenant?.webhook_secret_enc) {
        const secret = decryptSecret(config.DATA_ENCRYPTION_KEYRING, tenant.webhook_secret_enc, encryptionContext(WEBHOOK_SECRET_COLUMN, tenant.id));
        headers['X-Service-Signature'] = outboundSignatureHeader(secret, delivery.payload, Math.floor(Date.now() / 1000));
      }
      const attemptedAt = new Date().toISOString();
      const result = await postJson(delivery.callbackUrl, delivery.payload, headers, { timeoutMs: config.WEBHOOK_TIMEOUT, allowPrivate: config.ALLOW_PRIVATE_CALLBACK_URLS });
      const ok = isSuccess(result.statusCode) && result.error === null;
      const error = ok ? null : (result.error ?? `HTTP ${result.statusCode}`);
      return { ok, statusCode: result.statusCode, error, durationMs: result.durationMs, attemptedAt };
    },

    /** `retryInMs` null means no further attempt: a failure then makes the delivery a dead letter. */
    async record(deliveryId: string, attemptNo: number, result: DeliveryAttemptResult, retryInMs: number | null): Promise<void> {
      const attemptedAt = new Date(result.attemptedAt);
      const status = result.ok ? 'succeeded' : retryInMs === null ? 'dead_letter' : 'retrying';
      await db.transaction((trx) =>
        createDeliveriesRepo(trx).recordAttempt(deliveryId, {
          attemptNo,
          attemptedAt,
          statusCode: result.statusCode,
          error: result.error,
          durationMs: result.durationMs,
          status,
          nextRetryAt: status === 'retrying' ? new Date(Date.now() + retryInMs!) : null,
        }),
      );
    },
  };
}

export type WebhookDeliveryService = ReturnType<typeof createWebhookDeliveryService>;
