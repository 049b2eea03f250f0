import type { Config } from '../config';

/** The Temporal UI's workflow list filtered to one workflow id (it opens the latest run from there). */
export function temporalUiLink(config: Pick<Config, 'TEMPORAL_UI_URL' | 'TEMPORAL_NAMESPACE'>, workflowId: string): string {
  const query = encodeURIComponent(`WorkflowId="${workflowId}"`);
  return `${config.TEMPORAL_UI_URL.replace(/\/$/, '')}/namespaces/${encodeURIComponent(config.TEMPORAL_NAMESPACE)}/workflows?query=${query}`;
}
