import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

/** Keyword search attributes operators filter on in the Temporal UI; provisioning registers them. */
export const TENANT_ID = defineSearchAttributeKey('TenantId', SearchAttributeType.KEYWORD);
export const ACCOUNT_REF = defineSearchAttributeKey('AccountRef', SearchAttributeType.KEYWORD);
export const MERCHANT_TX_REF = defineSearchAttributeKey('MerchantTxRef', SearchAttributeType.KEYWORD);
export const SETTLEMENT_STATUS = defineSearchAttributeKey('SettlementStatus', SearchAttributeType.KEYWORD);
/** running, then the run's outcome (clean, repaired, exceptions, alert) or failed. */
export const RECONCILIATION_STATUS = defineSearchAttributeKey('ReconciliationStatus', SearchAttributeType.KEYWORD);

/**
 * A batch confirmation lists its payments' provider transaction references and account references, so
 * each payment is found by `ProviderTxnRefs = '<ref>'` or `AccountRefs = '<va_…>'` (a keyword list
 * matches when any of its values does).
 */
export const PROVIDER_TXN_REFS = defineSearchAttributeKey('ProviderTxnRefs', SearchAttributeType.KEYWORD_LIST);
export const ACCOUNT_REFS = defineSearchAttributeKey('AccountRefs', SearchAttributeType.KEYWORD_LIST);

export const CUSTOM_SEARCH_ATTRIBUTES = [
  TENANT_ID,
  ACCOUNT_REF,
  MERCHANT_TX_REF,
  SETTLEMENT_STATUS,
  RECONCILIATION_STATUS,
  PROVIDER_TXN_REFS,
  ACCOUNT_REFS,
] as const;

/** Search attribute values as stored in the outbox (plain JSON) before a workflow starts. */
export interface WorkflowSearchAttributes {
  TenantId?: string;
  AccountRef?: string;
  MerchantTxRef?: string;
  SettlementStatus?: string;
  ProviderTxnRefs?: string[];
  AccountRefs?: string[];
}

/**
 * Temporal caps one search attribute value at 2 KB by default (`limit.searchAttributeSizeOfValueLimit`):
 * a keyword list a workflow carries stays within the budget below, measured as the JSON Temporal stores.
 */
/** Temporal's default limit of one search attribute value, in bytes. */
export const SEARCH_ATTRIBUTE_VALUE_LIMIT_BYTES = 2_048;
/** What a keyword list may use of it: the limit less a margin for the payload's own encoding. */
export const SEARCH_ATTRIBUTE_BUDGET_BYTES = SEARCH_ATTRIBUTE_VALUE_LIMIT_BYTES - 48;

const utf8 = new TextEncoder();

/** The JSON size of a keyword list as Temporal stores it. */
export function keywordListBytes(values: readonly string[]): number {
  return utf8.encode(JSON.stringify(values)).length;
}

/**
 * What `value` adds to the JSON size of the distinct keyword list `list` (see keywordListBytes, which an empty list
 * starts at: 2): itself as a JSON string and the comma before it, or nothing when the list holds it already. Lets a
 * list grow one value at a time without measuring it whole again.
 */
export function keywordListGrowth(list: ReadonlySet<string>, value: string): number {
  if (list.has(value)) return 0;
  return utf8.encode(JSON.stringify(value)).length + (list.size > 0 ? 1 : 0);
}

/** A keyword list's values, each once, in first-seen order. */
export const distinct = (values: readonly string[]): string[] => [...new Set(values)];
