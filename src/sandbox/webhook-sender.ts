import { randomUUID } from 'node:crypto';
import type { Config } from '../config';
import type { Logger } from '../logger';
import { koboToProviderNumber } from '../money';
import { signProviderEvent } from '../provider/spec-provider/webhook-signature';
import { isoSeconds } from './sandbox-ids';
import type { DeliveryResult, SandboxState, SandboxWebhookEvent } from './sandbox.state';

/** Generous like a real provider's, but bounded so a stuck receiver cannot pin a test run. */
const DELIVERY_TIMEOUT_MS = 10_000;

export type ProviderEventType = 'payment_success' | 'payout_success' | 'payout_failed' | 'payout_refund';

export interface EventData {
  transaction: Record<string, unknown>;
  customer: Record<string, unknown>;
}

interface SentEvent {
  event: SandboxWebhookEvent;
  payload: unknown;
  /** null when the event was recorded but not delivered. */
  delivery: DeliveryResult | null;
}

export interface WebhookSender {
  /** `suppress`: the provider never sends it (an outage, a misconfigured URL): neither recorded nor delivered. */
  send(eventType: ProviderEventType, data: EventData, options?: { deliver?: boolean; suppress?: boolean }): Promise<SentEvent>;
  /** Sends the recorded bytes and headers again, as a provider retry would. */
  redeliver(event: SandboxWebhookEvent): Promise<DeliveryResult>;
  close(): void;
}

function failureText(error: unknown): string {
  if (error instanceof Error && error.name === 'TimeoutError') return `timed out after ${DELIVERY_TIMEOUT_MS} ms`;
  if (error instanceof Error && error.name === 'AbortError') return 'sandbox closed';
  const cause = error instanceof Error ? (error.cause as { code?: string; message?: string } | undefined) : undefined;
  return cause?.code ?? cause?.message ?? (error instanceof Error ? error.message : String(error));
}

export function createWebhookSender(deps: { config: Config; logger: Logger; state: SandboxState }): WebhookSender {
  const { config, logger, state } = deps;
  const closing = new AbortController();

  async function deliver(event: SandboxWebhookEvent): Promise<DeliveryResult> {
    const at = new Date().toISOString();
    let result: DeliveryResult;
    try {
      const response = await fetch(config.SANDBOX_WEBHOOK_URL, {
        method: 'POST',
        headers: event.headers,
        body: event.body,
        signal: AbortSignal.any([AbortSignal.timeout(DELIVERY_TIMEOUT_MS), closing.signal]),
      });
      await response.arrayBuffer();
      result = { status: response.status, at };
    } catch (error) {
      result = { status: null, error: failureText(error), at };
    }
    event.deliveries.push(result);
    logger.info(
      { eventType: event.eventType, requestId: event.requestId, status: result.status, error: result.error },
      'sandbox webhook delivered',
    );
    return result;
  }

  return {
    async send(eventType, data, options = {}) {
      const payload = {
        event_type: eventType,
        requestId: randomUUID(),
        data: {
          merchant: { ...state.merchant, walletBalance: koboToProviderNumber(state.walletBalanceKobo) },
          transaction: data.transaction,
          customer: data.customer,
        },
      };
      const timestamp = isoSeconds();
      const event: SandboxWebhookEvent = {
        requestId: payload.requestId,
        eventType,
        body: JSON.stringify(payload),
        headers: {
          'content-type': 'application/json',
          'provider-signature': signProviderEvent(config.PROVIDER_WEBHOOKS_SIGNING_SECRET, payload, timestamp),
          'provider-timestamp': timestamp,
        },
        deliveries: [],
      };
      if (options.suppress) return { event, payload, delivery: null };
      state.events.push(event);
      const delivery = options.deliver === false ? null : await deliver(event);
      return { event, payload, delivery };
    },

    redeliver: deliver,

    close() {
      closing.abort();
    },
  };
}
