import { Registry } from 'prom-client';
import { createIngestMetrics, type IngestMetrics } from './ingest.metrics';
import { createProviderMetrics, type ProviderMetrics } from './provider.metrics';
import { createSettlementWatchMetrics, type SettlementWatchMetrics } from './settlement-watch.metrics';
import { createWorkflowStartMetrics, type WorkflowStartMetrics } from './workflow-start.metrics';

export interface ProcessMetrics {
  registry: Registry;
  ingest: IngestMetrics;
  provider: ProviderMetrics;
  starts: WorkflowStartMetrics;
  settlementWatch: SettlementWatchMetrics;
}

/** The metrics one process keeps in memory, in a registry of its own (tests run several in one process). */
export function createProcessMetrics(): ProcessMetrics {
  const registry = new Registry();
  return {
    registry,
    ingest: createIngestMetrics(registry),
    provider: createProviderMetrics(registry),
    starts: createWorkflowStartMetrics(registry),
    settlementWatch: createSettlementWatchMetrics(registry),
  };
}
