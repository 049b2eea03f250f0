import type { ConnectionLike } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { SearchAttributeType } from '@temporalio/common';
import { CUSTOM_SEARCH_ATTRIBUTES } from '../contracts/search-attributes';

const INDEXED_TYPE = temporal.api.enums.v1.IndexedValueType;
const indexedTypeOf = (name: string) =>
  CUSTOM_SEARCH_ATTRIBUTES.find((key) => key.name === name)?.type === SearchAttributeType.KEYWORD_LIST
    ? INDEXED_TYPE.INDEXED_VALUE_TYPE_KEYWORD_LIST
    : INDEXED_TYPE.INDEXED_VALUE_TYPE_KEYWORD;
const typeWord = (name: string): string =>
  indexedTypeOf(name) === INDEXED_TYPE.INDEXED_VALUE_TYPE_KEYWORD_LIST ? 'KeywordList' : 'Keyword';

const INVALID_ARGUMENT = 3;
const ALREADY_EXISTS = 6;
const PERMISSION_DENIED = 7;
const UNIMPLEMENTED = 12;
const UNAUTHENTICATED = 16;

function grpcCode(error: unknown): number | undefined {
  return (error as { code?: number }).code;
}

const refused = (error: unknown): boolean => [PERMISSION_DENIED, UNIMPLEMENTED, UNAUTHENTICATED].includes(grpcCode(error) ?? -1);

/** The namespace lacks search attributes the service filters on, and this connection may not add them. */
export class MissingSearchAttributesError extends Error {
  constructor(
    readonly missing: string[],
    namespace: string,
    cause: unknown,
  ) {
    const names = missing.join(', ');
    super(
      `Temporal namespace "${namespace}" lacks the search attribute(s) ${names}, and this connection may not register them ` +
        `(${(cause as Error)?.message ?? String(cause)}). Register them once with an operator's rights, then start again: ` +
        `on Temporal Cloud \`tcld namespace search-attributes add --namespace ${namespace} ${missing.map((name) => `--search-attribute ${name}=${typeWord(name)}`).join(' ')}\`` +
        ` (or the Cloud UI); self-hosted \`temporal operator search-attribute create --namespace ${namespace} ${missing.map((name) => `--name ${name} --type ${typeWord(name)}`).join(' ')}\`.`,
    );
    this.name = 'MissingSearchAttributesError';
  }
}

/** Whether the namespace knows the attribute, asked the way any client may: a visibility count filtering on it. */
async function answersQueriesOn(connection: ConnectionLike, namespace: string, name: string): Promise<boolean> {
  try {
    await connection.workflowService.countWorkflowExecutions({ namespace, query: `${name} = 'probe'` });
    return true;
  } catch (error) {
    if (grpcCode(error) === INVALID_ARGUMENT) return false;
    throw error;
  }
}

/**
 * The registered custom attributes, or null when the server cannot say (the Java time-skipping test
 * server). Where the operator API is refused (Temporal Cloud), each attribute is probed by a query.
 */
async function registeredNames(connection: ConnectionLike, namespace: string): Promise<Set<string> | null> {
  try {
    const existing = await connection.operatorService.listSearchAttributes({ namespace });
    return new Set(Object.keys(existing.customAttributes ?? {}));
  } catch (error) {
    if (grpcCode(error) === UNIMPLEMENTED) return null;
    if (!refused(error)) throw error;
    const known = await Promise.all(
      CUSTOM_SEARCH_ATTRIBUTES.map(async (key) => ((await answersQueriesOn(connection, namespace, key.name)) ? [key.name] : [])),
    );
    return new Set(known.flat());
  }
}

/**
 * Idempotently registers the Keyword search attributes on whatever server is configured. When some
 * are missing and the server refuses to add them, one error names every missing attribute and how to
 * add it.
 */
export async function registerSearchAttributes(connection: ConnectionLike, namespace: string): Promise<string[]> {
  const known = await registeredNames(connection, namespace);
  const missing = CUSTOM_SEARCH_ATTRIBUTES.filter((key) => !known?.has(key.name)).map((key) => key.name);
  if (missing.length === 0) return [];
  try {
    await connection.operatorService.addSearchAttributes({
      namespace,
      searchAttributes: Object.fromEntries(missing.map((name) => [name, indexedTypeOf(name)])),
    });
  } catch (error) {
    if (grpcCode(error) === ALREADY_EXISTS) return missing;
    if (refused(error) && known !== null) throw new MissingSearchAttributesError(missing, namespace, error);
    throw error;
  }
  return missing;
}
