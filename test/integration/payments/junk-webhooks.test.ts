import assert from 'node:assert/strict';
import { createHash, randomUUID } from 'node:crypto';
import { paymentEvent, sendProviderEvent } from '../../helpers/fixtures';
import { startStack, type Stack } from '../../helpers/stack';

describe('webhooks failing verification', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });
  after(() => stack.close());

  const storedCopies = (body: string) =>
    stack.infra
      .db('inbound_events')
      .where({ raw_sha256: createHash('sha256').update(body).digest('hex') })
      .select('id', 'occurrences', 'category', 'signature_valid');

  it('stores identical junk once with a count, and each different body apart', async () => {
    const junk = JSON.stringify(paymentEvent({ accountRef: 'va_nobody_000000000000', requestId: `junk-${randomUUID()}` }));
    for (let copy = 0; copy < 3; copy += 1)
      assert.equal((await sendProviderEvent(stack, JSON.parse(junk), { forged: true, rawBody: junk })).status, 200);
    const other = JSON.stringify(paymentEvent({ accountRef: 'va_nobody_000000000000', requestId: `junk-${randomUUID()}` }));
    assert.equal((await sendProviderEvent(stack, JSON.parse(other), { forged: true, rawBody: other })).status, 200);

    assert.deepEqual(
      (await storedCopies(junk)).map((row) => ({
        occurrences: row.occurrences,
        category: row.category,
        signatureValid: row.signature_valid,
      })),
      [{ occurrences: 3, category: 'sig_invalid', signatureValid: false }],
    );
    assert.deepEqual(
      (await storedCopies(other)).map((row) => row.occurrences),
      [1],
    );
  });
});
