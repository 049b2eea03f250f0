import assert from 'node:assert/strict';
import { createPaymentPostingGroups } from '../../src/payment-ingest/payment-posting-groups';
import type { PaymentPostingResult, PaymentToPost } from '../../src/payment-ingest/payment-posting.repo';

const payment = (id: string, aliasRef = 'va_1'): PaymentToPost => ({
  aliasRef,
  event: { id } as PaymentToPost['event'],
  plan: {} as PaymentToPost['plan'],
});
const posted = (id: string): PaymentPostingResult => ({
  kind: 'duplicate',
  account: { id, tenantId: 't', accountRef: 'va', callbackUrl: null },
});

/** A repo whose statements finish when the test says so, recording what each carried. */
function controlledRepo(fail: (ids: string[]) => Error | null = () => null) {
  const statements: string[][] = [];
  const pending: Array<() => void> = [];
  return {
    statements,
    finishNext: () => pending.shift()?.(),
    repo: {
      postGroup: (payments: PaymentToPost[]) =>
        new Promise<PaymentPostingResult[]>((resolve, reject) => {
          const ids = payments.map((candidate) => candidate.event.id);
          statements.push(ids);
          pending.push(() => {
            const error = fail(ids);
            if (error) reject(error);
            else resolve(ids.map(posted));
          });
        }),
    },
  };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('payment posting groups', () => {
  const metrics = { postingGroup() {} };

  it('posts a lone payment at once, and the ones arriving meanwhile together in the next statement, each getting its own result', async () => {
    const { repo, statements, finishNext } = controlledRepo();
    const groups = createPaymentPostingGroups({ repo, maxGroup: 2, maxStatements: 2, metrics });
    const first = groups.post(payment('a'));
    await tick();
    assert.deepEqual(statements, [['a']]);
    const later = ['b', 'c', 'd'].map((id) => groups.post(payment(id)));
    const otherAccount = groups.post(payment('x', 'va_2'));
    await tick();
    assert.deepEqual(statements, [['a'], ['x']], 'another account does not wait for the account a statement holds');
    finishNext();
    assert.equal((await first).kind, 'duplicate');
    await tick();
    assert.deepEqual(statements.at(-1), ['b', 'c'], 'at most maxGroup in one statement');
    finishNext();
    finishNext();
    await tick();
    assert.deepEqual(statements.at(-1), ['d']);
    finishNext();
    const results = await Promise.all([...later, otherAccount]);
    assert.deepEqual(
      results.map((result) => (result.kind === 'no_account' ? null : result.account.id)),
      ['b', 'c', 'd', 'x'],
    );
  });

  it('runs at most maxStatements at once; webhooks to any accounts arriving meanwhile share the next statement, in arrival order', async () => {
    const { repo, statements, finishNext } = controlledRepo();
    const groups = createPaymentPostingGroups({ repo, maxGroup: 10, maxStatements: 1, metrics });
    const first = groups.post(payment('a', 'va_1'));
    await tick();
    const rest = [payment('b', 'va_2'), payment('c', 'va_3'), payment('d', 'va_1'), payment('e', 'va_2')].map((item) => groups.post(item));
    await tick();
    assert.deepEqual(statements, [['a']], 'the only statement slot is taken');
    finishNext();
    await first;
    await tick();
    assert.deepEqual(statements.at(-1), ['b', 'c', 'd', 'e'], 'four accounts, one statement');
    finishNext();
    assert.deepEqual(
      (await Promise.all(rest)).map((result) => (result.kind === 'no_account' ? null : result.account.id)),
      ['b', 'c', 'd', 'e'],
    );
  });

  it('keeps an account a running statement holds out of the next group, and takes it in the one after', async () => {
    const { repo, statements, finishNext } = controlledRepo();
    const groups = createPaymentPostingGroups({ repo, maxGroup: 10, maxStatements: 3, metrics });
    void groups.post(payment('a', 'hot'));
    await tick();
    void groups.post(payment('b', 'hot'));
    void groups.post(payment('c', 'cold'));
    void groups.post(payment('d', 'hot'));
    await tick();
    assert.deepEqual(statements, [['a'], ['c']], 'the hot account waits for its statement; the cold one does not');
    finishNext();
    await tick();
    assert.deepEqual(statements.at(-1), ['b', 'd'], "the hot account's webhooks that piled up go together");
  });

  it('posts each payment of a failed group alone, so one bad payment fails alone', async () => {
    const bad = Object.assign(new Error('duplicate key value violates unique constraint'), { code: '23505' });
    const { repo, statements, finishNext } = controlledRepo((ids) => (ids.includes('bad') ? bad : null));
    const groups = createPaymentPostingGroups({ repo, maxGroup: 10, maxStatements: 1, metrics });
    const results = ['a', 'b', 'bad', 'c'].map((id) =>
      groups.post(payment(id)).then(
        (result) => result,
        (error: unknown) => error,
      ),
    );
    for (let i = 0; i < 10; i += 1) {
      await tick();
      finishNext();
    }
    assert.deepEqual(statements, [['a'], ['b', 'bad', 'c'], ['b'], ['bad'], ['c']]);
    const settled = await Promise.all(results);
    assert.equal(settled[2], bad);
    assert.deepEqual(
      [settled[0], settled[1], settled[3]].map((result) => (result as { account: { id: string } }).account.id),
      ['a', 'b', 'c'],
    );
  });

  it('fails every payment of a group at once when the database is unavailable (each answers 503)', async () => {
    const down = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    const { repo, statements, finishNext } = controlledRepo((ids) => (ids.length > 1 ? down : null));
    const groups = createPaymentPostingGroups({ repo, maxGroup: 10, maxStatements: 1, metrics });
    const results = ['a', 'b', 'c'].map((id) =>
      groups.post(payment(id)).then(
        (result) => result,
        (error: unknown) => error,
      ),
    );
    for (let i = 0; i < 4; i += 1) {
      await tick();
      finishNext();
    }
    assert.deepEqual(statements, [['a'], ['b', 'c']], 'no payment of the failed group is retried alone');
    const settled = await Promise.all(results);
    assert.deepEqual([settled[1], settled[2]], [down, down]);
  });
});
