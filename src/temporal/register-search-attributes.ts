import type { ConnectionLike } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { CUSTOM_SEARCH_ATTRIBUTES } from './search-attributes';

const ALREADY_EXISTS = 6;
const UNIMPLEMENTED = 12;

function grpcCode(error: unknown): number | undefined {
  return (error as { code?: number }).code;
}

async function registeredNames(connection: ConnectionLike, namespace: string): Promise<Set<string> | null> {
  try {
    const existing = await connection.operatorService.listSearchAttributes({ namespace });
    return new Set(Object.keys(existing.customAttributes ?? {}));
  } catch (error) {
    // The Java time-skipping test server cannot list; adding and tolerating ALREADY_EXISTS still works there.
    if (grpcCode(error) === UNIMPLEMENTED) return null;
    throw error;
  }
}

/** Idempotently registers the Keyword search attributes on whatever server is configured. */
export async function registerSearchAttributes(connection: ConnectionLike, namespace: string): Promise<string[]> {
  const known = await registeredNames(connection, namespace);
  const missing = CUSTOM_SEARCH_ATTRIBUTES.filter((key) => !known?.has(key.name));
  if (missing.length === 0) return [];
  try {
    await connection.operatorService.addSearchAttributes({
      namespace,
      searchAttributes: Object.fromEntries(missing.map((key) => [key.name, temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD])),
    });
  } catch (error) {
    if (grpcCode(error) !== ALREADY_EXISTS) throw error;
  }
  return missing.map((key) => key.name);
}
