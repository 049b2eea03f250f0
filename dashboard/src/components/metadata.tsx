import { Field } from './bits';

/** A list's metadata filter as the page's address keeps it (`?metaKey=orderId&metaValue=A-17`). */
export interface MetadataFilter {
  key: string;
  value: string;
}

export function metadataFilterOf(params: Record<string, string | undefined>): MetadataFilter {
  return { key: params.metaKey ?? '', value: params.metaValue ?? '' };
}

/** The filter in the page's own address, for a link or a route. */
export function metadataFilterParams(filter: MetadataFilter): Record<string, string> {
  return filter.key ? { metaKey: filter.key, metaValue: filter.value } : {};
}

/** The filter as the dashboard API reads it, `metadata[orderId]=A-17`: nothing when no key is given. */
export function metadataQuery(filter: MetadataFilter): Record<string, string> {
  return filter.key ? { [`metadata[${filter.key}]`]: filter.value } : {};
}

/** The two inputs of a list's metadata filter: a key, and the value it must have exactly. */
export function MetadataFilterFields(props: { filter: MetadataFilter; onChange: (filter: MetadataFilter) => void }) {
  const { filter, onChange } = props;
  return (
    <>
      <Field label="Metadata key" hint="e.g. orderId">
        <input
          type="text"
          name="metaKey"
          value={filter.key}
          maxLength={40}
          onInput={(event) => onChange({ ...filter, key: event.currentTarget.value.trim() })}
        />
      </Field>
      <Field label="Metadata value" hint="exactly this value">
        <input
          type="text"
          name="metaValue"
          value={filter.value}
          maxLength={500}
          onInput={(event) => onChange({ ...filter, value: event.currentTarget.value })}
        />
      </Field>
    </>
  );
}

/** A record's metadata as a key/value list; a dash when it carries none. */
export function MetadataList(props: { metadata: Record<string, string> | undefined }) {
  const entries = Object.entries(props.metadata ?? {});
  if (entries.length === 0) return <span class="muted">—</span>;
  return (
    <dl class="metadata" data-testid="metadata">
      {entries.map(([key, value]) => (
        <div key={key}>
          <dt class="mono">{key}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}
