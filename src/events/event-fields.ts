import { z } from 'zod';
import type { Metadata } from '../http/metadata';
import { moneySchema, timestampSchema } from '../http/schemas';
import { formatKobo, type Kobo } from '../money';

/**
 * The kinds of field an event's data is made of. Each kind says once how a value becomes the field: its
 * schema (validation, types, OpenAPI), its TypeScript value, and the same value written in SQL, for the
 * grouped statements that record events in the statement that moves the money. An event type's data is a
 * list of these (see the catalogue), so its TypeScript and SQL forms cannot differ in fields, order or format.
 */
export interface InputField<Input, Output> {
  kind: 'input';
  schema: z.ZodType<Output>;
  value: (input: Input) => Output;
  /** The field from an SQL expression of the input. */
  sql: (expression: string) => string;
}

/** A field with one value for every event of its type (the currency, the spec body's eventType and status). */
export interface ConstantField<Value extends string> {
  kind: 'constant';
  schema: z.ZodLiteral<Value>;
  constant: Value;
}

/**
 * A field only some bodies of a type carry, after every other field (a body without it stays byte-identical to
 * the type's bodies before it existed): in TypeScript it is there when its input is given; in SQL it is
 * appended to a body's text (optionalFieldsTextSql).
 */
export interface OptionalField<Input, Output> {
  kind: 'optional';
  schema: z.ZodOptional<z.ZodType<Output>>;
  field: InputField<Input, Output>;
}

export type Field = InputField<never, unknown> | ConstantField<string> | OptionalField<never, unknown>;
export type Fields = Record<string, Field>;

/** What a body built from `fields` needs: a value for each field that is not constant (optional ones may be left out). */
export type FieldsInput<F extends Fields> = {
  [K in keyof F as F[K] extends InputField<never, unknown> ? K : never]: F[K] extends InputField<infer Input, unknown> ? Input : never;
} & {
  [K in keyof F as F[K] extends OptionalField<never, unknown> ? K : never]?: F[K] extends OptionalField<infer Input, unknown>
    ? Input
    : never;
};

/** The data a body built from `fields` is. */
export type FieldsOutput<F extends Fields> = {
  [K in keyof F as F[K] extends OptionalField<never, unknown> ? never : K]: F[K] extends InputField<never, infer Output>
    ? Output
    : F[K] extends ConstantField<infer Value>
      ? Value
      : never;
} & {
  [K in keyof F as F[K] extends OptionalField<never, unknown> ? K : never]?: F[K] extends OptionalField<never, infer Output>
    ? Output
    : never;
};

const asText = (expression: string) => `CAST(${expression} AS text)`;

function input<Input, Output>(
  schema: z.ZodType<Output>,
  value: (input: Input) => Output,
  sql: (expression: string) => string,
): InputField<Input, Output> {
  return { kind: 'input', schema, value, sql };
}

/** A kobo amount (a bigint SQL expression) as formatKobo writes it: the two-decimal naira string of moneySchema. */
function nairaSql(kobo: string): string {
  return `CASE WHEN ${kobo} < 0 THEN '-' ELSE '' END || CAST(abs(${kobo}) / 100 AS text) || '.' || lpad(CAST(abs(${kobo}) % 100 AS text), 2, '0')`;
}

export const field = {
  uuid: input<string, string>(z.uuid(), (value) => value, asText),
  text: input<string, string>(z.string(), (value) => value, asText),
  nullableText: input<string | null, string | null>(z.string().nullable(), (value) => value, asText),
  integer: input<number, number>(
    z.number().int(),
    (value) => value,
    (expression) => `CAST(${expression} AS int)`,
  ),
  naira: input<Kobo, string>(moneySchema, formatKobo, nairaSql),
  nullableNaira: input<Kobo | null, string | null>(
    moneySchema.nullable(),
    (value) => (value === null ? null : formatKobo(value)),
    (expression) => `CASE WHEN ${expression} IS NULL THEN NULL ELSE ${nairaSql(expression)} END`,
  ),
  /** A Date as toISOString writes it (milliseconds, UTC). */
  timestamp: input<Date, string>(
    timestampSchema,
    (value) => value.toISOString(),
    (expression) => `to_char(CAST(${expression} AS timestamptz) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`,
  ),
  /** A Date or null, as timestamp writes the Date. */
  nullableTimestamp: input<Date | null, string | null>(
    timestampSchema.nullable(),
    (value) => (value === null ? null : value.toISOString()),
    (expression) =>
      `CASE WHEN ${expression} IS NULL THEN NULL ELSE to_char(CAST(${expression} AS timestamptz) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') END`,
  ),
  /** The tenant's metadata on the record the event is about (a jsonb SQL expression). */
  metadata: input<Metadata, Metadata>(
    z.record(z.string(), z.string()),
    (value) => value,
    (expression) => `CAST(${expression} AS jsonb)`,
  ),
  oneOf<const Values extends readonly [string, ...string[]]>(values: Values): InputField<Values[number], Values[number]> {
    return input<Values[number], Values[number]>(z.enum(values), (value) => value, asText);
  },
  constant<const Value extends string>(value: Value): ConstantField<Value> {
    return { kind: 'constant', schema: z.literal(value), constant: value };
  },
  optional<Input, Output>(inner: InputField<Input, Output>): OptionalField<Input, Output> {
    return { kind: 'optional', schema: inner.schema.optional(), field: inner };
  },
};

/** The zod object of a body: the fields' schemas in the fields' order. */
export function fieldsSchema<F extends Fields>(fields: F): z.ZodObject<{ [K in keyof F]: F[K]['schema'] }> {
  return z.object(Object.fromEntries(Object.entries(fields).map(([name, item]) => [name, item.schema]))) as z.ZodObject<{
    [K in keyof F]: F[K]['schema'];
  }>;
}

/**
 * A body in TypeScript, its fields in the list's order (JSON.stringify keeps it). A plain loop that allocates
 * only the body: every payment webhook builds one on the API's hot path.
 */
export function fieldsValue<F extends Fields>(fields: F, values: FieldsInput<F>): FieldsOutput<F> {
  const given = values as Record<string, unknown>;
  const body: Record<string, unknown> = {};
  for (const name in fields) {
    const item = fields[name]!;
    if (item.kind === 'constant') body[name] = item.constant;
    else if (item.kind === 'optional') {
      if (given[name] !== undefined) body[name] = item.field.value(given[name] as never);
    } else body[name] = item.value(given[name] as never);
  }
  return body as FieldsOutput<F>;
}

const quoted = (text: string) => `'${text.replaceAll("'", "''")}'`;

/**
 * The same body in SQL, from an SQL expression per input; json (not jsonb) keeps the fields' order. Optional
 * fields are left out: a body carrying them is written as text (optionalFieldsTextSql).
 */
export function fieldsSql<F extends Fields>(fields: F, expressions: Record<keyof FieldsInput<F>, string>): string {
  const given = expressions as Record<string, string>;
  const pairs = Object.entries(fields).flatMap(([name, item]) =>
    item.kind === 'optional' ? [] : [`${quoted(name)}, ${item.kind === 'constant' ? quoted(item.constant) : item.sql(given[name]!)}`],
  );
  return `json_build_object(${pairs.join(', ')})`;
}

/**
 * The optional fields of a body as SQL text to append to the body's JSON text before its closing brace: each
 * `,"name":value` exactly as JSON.stringify writes it, so a body built in SQL has the bytes fieldsValue's body has.
 */
export function optionalFieldsTextSql<F extends Fields>(fields: F, expressions: Record<string, string>): string {
  const parts = Object.entries(fields).flatMap(([name, item]) =>
    item.kind === 'optional'
      ? [`${quoted(`,${JSON.stringify(name)}:`)} || coalesce(CAST(to_json(${item.field.sql(expressions[name]!)}) AS text), 'null')`]
      : [],
  );
  return parts.join(' || ');
}
