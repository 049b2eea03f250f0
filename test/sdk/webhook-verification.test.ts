import assert from 'node:assert/strict';
import { outboundSignatureHeader } from '../../src/webhooks/outbound-signature';
import { sdk } from '../helpers/sdk';
import { loadTestVectors } from '../helpers/test-vectors';

interface OutboundVector {
  secret: string;
  t: number;
  rawBody: string;
  header: string;
}

const { verifyWebhook, WebhookVerificationError, isPaymentReceived } = sdk;

describe('the TypeScript client: verifyWebhook', () => {
  const vector = loadTestVectors<OutboundVector>('outbound-signature');
  const at = { nowSeconds: vector.t, toleranceSeconds: 300 };

  it("verifies the spec's vector and returns the typed payment.received", () => {
    const event = verifyWebhook(vector.rawBody, vector.header, vector.secret, at);
    assert.ok(isPaymentReceived(event));
    assert.equal(event.amount, '5000.00');
    assert.equal(event.accountRef, 'acct_ref_0001');
  });

  it('verifies raw bytes as well as a string', () => {
    assert.ok(verifyWebhook(Buffer.from(vector.rawBody, 'utf8'), vector.header, vector.secret, at));
  });

  it('refuses the body with any one byte changed', () => {
    const body = Buffer.from(vector.rawBody, 'utf8');
    for (let index = 0; index < body.length; index += 1) {
      const changed = Buffer.from(body);
      changed[index] = changed[index]! ^ 0x01;
      assert.throws(() => verifyWebhook(changed, vector.header, vector.secret, at), WebhookVerificationError, `byte ${index}`);
    }
  });

  it('accepts a signature 300 s old and refuses one 301 s old, or 301 s ahead', () => {
    assert.ok(verifyWebhook(vector.rawBody, vector.header, vector.secret, { nowSeconds: vector.t + 300 }));
    assert.throws(
      () => verifyWebhook(vector.rawBody, vector.header, vector.secret, { nowSeconds: vector.t + 301 }),
      /301 s old, outside the 300 s tolerance/,
    );
    assert.throws(
      () => verifyWebhook(vector.rawBody, vector.header, vector.secret, { nowSeconds: vector.t - 301 }),
      WebhookVerificationError,
    );
  });

  it('refuses a signature made with another secret, or a header re-signed for another time', () => {
    assert.throws(() => verifyWebhook(vector.rawBody, vector.header, 'whsec_someone_else', at), /does not match the body/);
    const otherTime = vector.header.replace(`t=${vector.t}`, `t=${vector.t + 1}`);
    assert.throws(() => verifyWebhook(vector.rawBody, otherTime, vector.secret, { nowSeconds: vector.t }), /does not match the body/);
  });

  it('refuses a missing or malformed header', () => {
    for (const header of [
      undefined,
      null,
      '',
      'v1=abc',
      `t=${vector.t}`,
      `t=${vector.t},v1=zz`,
      `t=now,v1=${'0'.repeat(64)}`,
      `${vector.header},v0=1`,
    ]) {
      assert.throws(() => verifyWebhook(vector.rawBody, header, vector.secret, at), WebhookVerificationError, String(header));
    }
  });

  it('verifies a header the service signs now, and one carrying two digests during a secret rotation', () => {
    const now = Math.floor(Date.now() / 1000);
    const body = JSON.stringify({
      id: '0190b5a8-8c1e-7d6e-9f00-000000000001',
      type: 'settlement.succeeded',
      createdAt: new Date().toISOString(),
      subject: 'mtx_1',
      sequence: 2,
      data: { merchantTxRef: 'mtx_1' },
    });
    const event = verifyWebhook(body, outboundSignatureHeader(vector.secret, body, now), vector.secret);
    assert.ok(!isPaymentReceived(event));
    assert.equal(event.type, 'settlement.succeeded');
    assert.equal(event.sequence, 2);
    const newDigest = outboundSignatureHeader('whsec_new_secret', body, now).split(',')[1];
    const rotating = `${outboundSignatureHeader(vector.secret, body, now)},${newDigest}`;
    assert.ok(verifyWebhook(body, rotating, vector.secret));
    assert.ok(verifyWebhook(body, rotating, 'whsec_new_secret'));
  });

  it('refuses a signed body that is not JSON', () => {
    const now = Math.floor(Date.now() / 1000);
    assert.throws(() => verifyWebhook('not json', outboundSignatureHeader(vector.secret, 'not json', now), vector.secret), /not JSON/);
  });
});
