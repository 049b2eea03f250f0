import { useLocation } from 'preact-iso';
import { api, query } from '../api';
import type { AuditLogPage as AuditPage } from '../api-types';
import { AuditTable } from '../components/audit-table';
import { Field, PageTitle, Pager, useCursorPages } from '../components/bits';
import { Empty, Loaded, useResource } from '../components/state';
import { humanize } from '../format';
import { AUDIT_ACTIONS } from '../../../src/audit/audit-actions';

export function AuditLogPage() {
  const location = useLocation();
  const action = location.query.action ?? '';
  const pages = useCursorPages([action]);
  const entries = useResource(
    () => api<AuditPage>('GET', `/auth/audit-log${query({ action, after: pages.cursor })}`),
    [action, pages.cursor],
  );
  return (
    <>
      <PageTitle title="Audit log" />
      <p class="muted">Every action taken through the dashboard (or the /auth API), newest first. The log cannot be edited.</p>
      <div class="toolbar">
        <Field label="Action">
          <select
            value={action}
            onChange={(event) => location.route(`/dashboard/audit-log${query({ action: event.currentTarget.value })}`)}
          >
            <option value="">All actions</option>
            {AUDIT_ACTIONS.map((value) => (
              <option key={value} value={value}>
                {humanize(value)}
              </option>
            ))}
          </select>
        </Field>
      </div>
      <Loaded resource={entries} what="the audit log">
        {(data) =>
          data.entries.length === 0 ? (
            <Empty>
              <p>No actions recorded{action ? ` of this kind` : ''}.</p>
            </Empty>
          ) : (
            <>
              <AuditTable entries={data.entries} label="Audit log" />
              <Pager
                page={pages.page}
                nextCursor={data.pagination.nextCursor}
                onNext={pages.next}
                onPrevious={pages.previous}
                label="Audit log pages"
              />
            </>
          )
        }
      </Loaded>
    </>
  );
}
