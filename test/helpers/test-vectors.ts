import { readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * The signature vectors computed from SPEC.md (a copy of shared/test-vectors, kept in the repository so
 * a clone is self-contained). Compiled to dist/test/helpers; the JSON stays in test/vectors.
 */
export function loadTestVectors<T>(name: 'inbound-signature' | 'outbound-signature'): T {
  return JSON.parse(readFileSync(path.resolve(__dirname, '../../../test/vectors', `${name}.json`), 'utf8')) as T;
}
