import { AggregatorRegistry, type Registry } from 'prom-client';

/** In a copy of a process group: answer the primary's requests for this process's metrics. */
export function shareMetricsWithPrimary(registry: Registry): void {
  // Constructing one installs prom-client's listener for the primary's requests.
  new AggregatorRegistry();
  AggregatorRegistry.setRegistries([registry]);
}

/** In a group's primary: every copy's metrics, summed (counters, histograms) or merged by each metric's own rule. */
export function groupMetrics(): () => Promise<string> {
  const aggregator = new AggregatorRegistry();
  return () => aggregator.clusterMetrics();
}
