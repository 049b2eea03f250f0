import { isRetryableDatabaseError } from '../db';
import type { IngestMetrics } from '../metrics/ingest.metrics';
import type { PaymentPostingResult, PaymentToPost, createPaymentPostingRepo } from './payment-posting.repo';

interface Waiting {
  payment: PaymentToPost;
  resolve(result: PaymentPostingResult): void;
  reject(error: unknown): void;
}

/**
 * Group commit for payment webhooks. Each statement costs Postgres a fixed set-up (parse, plan, executor
 * and commit) about as large as its writes, and postings to one account serialise on its row lock. So at
 * most `maxStatements` posting statements run at once in this process, and webhooks arriving meanwhile
 * wait here and go together in the next one (up to `maxGroup`, across any accounts): one set-up, one
 * commit for the lot. An account a running statement posts to is left out of the next group until that
 * statement ends, so a hot account's webhooks pile into one statement instead of queueing for its lock one
 * by one. Nothing waits on purpose: a webhook that finds a statement slot free posts at once. Each caller
 * gets its own result only after the statement holding its credit has committed, so a 200 still means
 * "committed and visible in the statement". If a group's statement fails for a payment's own reason,
 * every payment of it is posted again on its own, so one bad payment (a transaction credited under
 * another request id) never decides the others' outcome; if it fails because the database is unavailable,
 * every one of them fails with it (a 503: the provider redelivers).
 */
export function createPaymentPostingGroups(deps: {
  repo: Pick<ReturnType<typeof createPaymentPostingRepo>, 'postGroup'>;
  maxGroup: number;
  maxStatements: number;
  metrics: Pick<IngestMetrics, 'postingGroup'>;
}) {
  const { repo, maxGroup, maxStatements, metrics } = deps;
  let waiting: Waiting[] = [];
  /** Accounts a running statement posts to. */
  const busy = new Set<string>();
  let running = 0;

  async function postAlone(item: Waiting): Promise<void> {
    try {
      const [result] = await repo.postGroup([item.payment]);
      metrics.postingGroup(1);
      item.resolve(result!);
    } catch (error) {
      item.reject(error);
    }
  }

  async function post(group: Waiting[]): Promise<void> {
    if (group.length === 1) return postAlone(group[0]!);
    let results: PaymentPostingResult[];
    try {
      results = await repo.postGroup(group.map((waiting) => waiting.payment));
    } catch (error) {
      // Postgres unreachable, a timeout: every webhook of the group answers 503 at once and the provider
      // redelivers (one by one, each would wait out the same outage in turn).
      if (isRetryableDatabaseError(error)) {
        for (const item of group) item.reject(error);
        return;
      }
      for (const item of group) await postAlone(item);
      return;
    }
    metrics.postingGroup(group.length);
    group.forEach((item, index) => item.resolve(results[index]!));
  }

  /** The oldest waiting webhooks whose accounts no running statement holds, up to maxGroup; the rest keep their order. */
  function takeGroup(): Waiting[] {
    const group: Waiting[] = [];
    const left: Waiting[] = [];
    for (const item of waiting) {
      if (group.length < maxGroup && !busy.has(item.payment.aliasRef)) group.push(item);
      else left.push(item);
    }
    waiting = left;
    return group;
  }

  function startStatements(): void {
    while (running < maxStatements && waiting.length > 0) {
      const group = takeGroup();
      if (group.length === 0) return;
      const accounts = new Set(group.map((item) => item.payment.aliasRef));
      for (const account of accounts) busy.add(account);
      running += 1;
      void post(group).finally(() => {
        for (const account of accounts) busy.delete(account);
        running -= 1;
        startStatements();
      });
    }
  }

  return {
    post(payment: PaymentToPost): Promise<PaymentPostingResult> {
      return new Promise((resolve, reject) => {
        waiting.push({ payment, resolve, reject });
        startStatements();
      });
    },
  };
}
