import { defineQuery, defineSignal } from '@temporalio/workflow';
import type { PayoutSignal, SettlementWorkflowState } from './payloads';

/**
 * The settlement workflow's signal and query, shared by the workflow and its callers (the API signals
 * through these definitions). defineSignal/defineQuery only build descriptors: safe outside workflows.
 */
export const payoutSignal = defineSignal<[PayoutSignal]>('payout');
export const settlementStatusQuery = defineQuery<SettlementWorkflowState>('status');
