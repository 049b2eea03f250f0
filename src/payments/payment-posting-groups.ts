import { isRetryableDatabaseError } from '../db';
import type { IngestMetrics } from '../metrics/ingest.metrics';
import type { PaymentPostingResult, PaymentToPost, createPaymentPostingRepo } from './payment-posting.repo';

interface Waiting {
  payment: PaymentToPost;
  resolve(result: PaymentPostingResult): void;
  reject(error: unknown): void;
}

/**
 * Group commit for one hot account. Postings to an account serialise on its row lock, so instead of
 * queueing in Postgres one statement each, webhooks to the same account in this process wait here while
 * that account's statement runs, and the next statement posts all of them together (up to `maxGroup`):
 * one lock, one commit for the lot. Nothing waits on purpose: a webhook alone posts at once. Each caller
 * still gets its own result only after the statement holding its credit has committed, so a 200 still
 * means "committed and visible in the statement". If a group's statement fails for a payment's own
 * reason, every payment of it is posted again on its own, so one bad payment (a transaction credited
 * under another request id) never decides the others' outcome; if it fails because the database is
 * unavailable, every one of them fails with it (a 503: the provider redelivers).
 */
export function createPaymentPostingGroups(deps: { repo: Pick<ReturnType<typeof createPaymentPostingRepo>, 'postGroup'>; maxGroup: number; metrics: Pick<IngestMetrics, 'postingGroup'> }) {
  const { repo, maxGroup, metrics } = deps;
  const lanes = new Map<string, Waiting[]>();

  async function postAlone(aliasRef: string, waiting: Waiting): Promise<void> {
    try {
      const [result] = await repo.postGroup(aliasRef, [waiting.payment]);
      metrics.postingGroup(1);
      waiting.resolve(result!);
    } catch (error) {
      waiting.reject(error);
    }
  }

  async function post(aliasRef: string, group: Waiting[]): Promise<void> {
    if (group.length === 1) return postAlone(aliasRef, group[0]!);
    let results: PaymentPostingResult[];
    try {
      results = await repo.postGroup(aliasRef, group.map((waiting) => waiting.payment));
    } catch (error) {
      // Postgres unreachable, a lost deadlock, a timeout: every webhook of the group answers 503 at once and
      // the provider redelivers (one by one, each would wait out the same outage in turn).
      if (isRetryableDatabaseError(error)) {
        for (const waiting of group) waiting.reject(error);
        return;
      }
      for (const waiting of group) await postAlone(aliasRef, waiting);
      return;
    }
    metrics.postingGroup(group.length);
    group.forEach((waiting, index) => waiting.resolve(results[index]!));
  }

  /** Runs this account's statements one after another while payments keep arriving for it. */
  async function drain(aliasRef: string, queue: Waiting[]): Promise<void> {
    while (queue.length > 0) await post(aliasRef, queue.splice(0, maxGroup));
    lanes.delete(aliasRef);
  }

  return {
    post(aliasRef: string, payment: PaymentToPost): Promise<PaymentPostingResult> {
      return new Promise((resolve, reject) => {
        const queue = lanes.get(aliasRef);
        if (queue) {
          queue.push({ payment, resolve, reject });
          return;
        }
        const started: Waiting[] = [{ payment, resolve, reject }];
        lanes.set(aliasRef, started);
        void drain(aliasRef, started);
      });
    },
  };
}

export type PaymentPostingGroups = ReturnType<typeof createPaymentPostingGroups>;
