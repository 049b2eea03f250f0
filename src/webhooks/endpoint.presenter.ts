import type { EndpointHealth, EndpointRecord } from './endpoints.repo';

export function presentEndpoint(endpoint: EndpointRecord, health: EndpointHealth) {
  return {
    ID: endpoint.id,
    URL: endpoint.url,
    Description: endpoint.description,
    EventTypes: endpoint.eventTypes ?? ['*'],
    Enabled: endpoint.enabled,
    DisabledReason: endpoint.disabledReason,
    Health: {
      SuccessRate: health.successRate,
      Delivered: health.delivered,
      Failed: health.failed,
      FailingSince: endpoint.failingSince?.toISOString() ?? null,
      LastError: endpoint.lastError,
      LastSuccessAt: endpoint.lastSuccessAt?.toISOString() ?? null,
    },
    SecretRotatedUntil:
      endpoint.previousSecretExpiresAt && endpoint.previousSecretExpiresAt > new Date()
        ? endpoint.previousSecretExpiresAt.toISOString()
        : null,
    CreatedAt: endpoint.createdAt.toISOString(),
  };
}
