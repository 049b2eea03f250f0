/**
 * The events' tables partitioned by month of `created_at` (see docs/scaling.md#history-by-month): the tenants' events,
 * their outbound deliveries and each delivery's attempts (in its delivery's month), each with a DEFAULT partition
 * `<table>_default`. src/history/ names them only through this list.
 */
export const EVENT_HISTORY_TABLES: readonly string[] = ['tenant_events', 'webhook_deliveries', 'webhook_attempts'];
