import assert from 'node:assert/strict';
import { providerSignedString, signProviderEvent, verifyProviderSignature } from '../../src/provider/spec-provider/webhook-signature';
import { loadTestVectors } from '../helpers/test-vectors';

interface SignatureVector {
  name: string;
  secret: string;
  timestampHeader: string;
  payload: Record<string, unknown>;
  signedString: string;
  signature: string;
  encoding: 'base64' | 'hex';
}

/** The eight payload fields the signature covers (the ninth is the timestamp header). */
const SIGNED_PATHS = [
  ['event_type'],
  ['requestId'],
  ['data', 'merchant', 'userId'],
  ['data', 'merchant', 'walletId'],
  ['data', 'transaction', 'transactionId'],
  ['data', 'transaction', 'type'],
  ['data', 'transaction', 'time'],
  ['data', 'transaction', 'responseCode'],
] as const;

function loadVectors(): SignatureVector[] {
  return loadTestVectors<{ cases: SignatureVector[] }>('inbound-signature').cases;
}

/** A deep copy with the string at `fieldPath` changed so it no longer signs the same. */
function tampered(payload: Record<string, unknown>, fieldPath: readonly string[]): Record<string, unknown> {
  const copy = structuredClone(payload);
  let node: Record<string, unknown> = copy;
  for (const key of fieldPath.slice(0, -1)) node = node[key] as Record<string, unknown>;
  const leaf = fieldPath[fieldPath.length - 1]!;
  node[leaf] = `${String(node[leaf])}x`;
  return copy;
}

function toBase64(signature: string, encoding: SignatureVector['encoding']): string {
  return encoding === 'base64' ? signature : Buffer.from(signature, 'hex').toString('base64');
}

const vectors = loadVectors();

describe('provider inbound signature (shared test vectors)', () => {
  it('has vectors in both encodings', () => {
    assert.ok(vectors.length >= 4);
    assert.ok(vectors.some((vector) => vector.encoding === 'base64'));
    assert.ok(vectors.some((vector) => vector.encoding === 'hex'));
  });

  for (const vector of vectors) {
    describe(vector.name, () => {
      it('builds exactly the signed string of the vector', () => {
        assert.equal(providerSignedString(vector.payload, vector.timestampHeader), vector.signedString);
      });

      it(`verifies the vector's ${vector.encoding} signature`, () => {
        assert.equal(verifyProviderSignature(vector.secret, vector.payload, vector.timestampHeader, vector.signature), true);
      });

      it('signs to the same digest (base64, as the provider sends)', () => {
        assert.equal(signProviderEvent(vector.secret, vector.payload, vector.timestampHeader), toBase64(vector.signature, vector.encoding));
      });

      it('verifies the same digest in the other encoding too', () => {
        const base64 = toBase64(vector.signature, vector.encoding);
        const hex = Buffer.from(base64, 'base64').toString('hex');
        assert.equal(verifyProviderSignature(vector.secret, vector.payload, vector.timestampHeader, base64), true);
        assert.equal(verifyProviderSignature(vector.secret, vector.payload, vector.timestampHeader, hex), true);
        assert.equal(verifyProviderSignature(vector.secret, vector.payload, vector.timestampHeader, hex.toUpperCase()), true);
      });

      for (const fieldPath of SIGNED_PATHS) {
        it(`rejects the event when ${fieldPath.join('.')} is tampered with`, () => {
          assert.equal(
            verifyProviderSignature(vector.secret, tampered(vector.payload, fieldPath), vector.timestampHeader, vector.signature),
            false,
          );
        });
      }

      it('rejects another timestamp header (a replay with a fresh timestamp)', () => {
        assert.equal(verifyProviderSignature(vector.secret, vector.payload, '2026-11-20T09:15:32Z', vector.signature), false);
      });

      it('rejects another secret', () => {
        assert.equal(verifyProviderSignature(`${vector.secret}x`, vector.payload, vector.timestampHeader, vector.signature), false);
      });

      it('rejects a truncated, empty or garbage signature', () => {
        for (const signature of [vector.signature.slice(0, -4), '', 'not a signature', 'x'.repeat(64)]) {
          assert.equal(
            verifyProviderSignature(vector.secret, vector.payload, vector.timestampHeader, signature),
            false,
            JSON.stringify(signature),
          );
        }
      });
    });
  }

  it('signs a responseCode of "null" as the empty string', () => {
    const empty = vectors.find(
      (vector) => (vector.payload.data as { transaction: { responseCode: string } }).transaction.responseCode === '',
    );
    const nullText = vectors.find(
      (vector) => (vector.payload.data as { transaction: { responseCode: string } }).transaction.responseCode === 'null',
    );
    assert.ok(empty && nullText);
    assert.equal(
      signProviderEvent(nullText.secret, nullText.payload, nullText.timestampHeader),
      signProviderEvent(empty.secret, empty.payload, empty.timestampHeader),
    );
  });

  // The spec signs nine fields, not the body: the amount is not covered, which is why every credit
  // stays provisional until it is checked against the provider's transaction record.
  it('does not cover transactionAmount (unsigned fields must be confirmed with the provider)', () => {
    const vector = vectors[0]!;
    const inflated = structuredClone(vector.payload) as { data: { transaction: { transactionAmount: number } } };
    inflated.data.transaction.transactionAmount = 9_999_999;
    assert.equal(verifyProviderSignature(vector.secret, inflated, vector.timestampHeader, vector.signature), true);
  });
});
