import type { AuditEntry } from '../api-types';
import { humanize, when } from '../format';
import { TableWrap } from './bits';

function detailText(detail: Record<string, unknown>): string {
  return Object.entries(detail)
    .filter(([, value]) => value !== null && value !== undefined && value !== '')
    .map(([key, value]) => `${key}: ${typeof value === 'object' ? JSON.stringify(value) : String(value)}`)
    .join(' · ');
}

/** Who did what, to what, when. */
export function AuditTable(props: { entries: AuditEntry[]; label: string }) {
  return (
    <TableWrap label={props.label}>
      <table>
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">Who</th>
            <th scope="col">Action</th>
            <th scope="col">Target</th>
            <th scope="col">Detail</th>
          </tr>
        </thead>
        <tbody>
          {props.entries.map((entry) => (
            <tr key={entry.ID}>
              <td>{when(entry.At)}</td>
              <td>{entry.Actor}</td>
              <td>{humanize(entry.Action)}</td>
              <td>
                {humanize(entry.TargetType)} <span class="mono small">{entry.TargetID ?? ''}</span>
              </td>
              <td class="small">{detailText(entry.Detail)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableWrap>
  );
}
