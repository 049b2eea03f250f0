import { z } from 'zod';
import { cursorQuerySchema, moneySchema, paginationSchema, timestampSchema } from '../http/schemas';
import { FINDINGS, type FindingKind } from './findings';

/** Any string: a malformed id is answered like an unknown one (404). */
export const runParamsSchema = z.object({ id: z.string() });
export const exceptionParamsSchema = z.object({ id: z.string() });

export const runListQuerySchema = cursorQuerySchema;
export const runDetailQuerySchema = cursorQuerySchema;

const FINDING_KINDS = Object.keys(FINDINGS) as [FindingKind, ...FindingKind[]];

/** Which findings to list: the dashboard's query and the CLI's options. */
export const exceptionFilterSchema = z.object({
  status: z.enum(['open', 'repaired', 'resolved'], { error: 'status must be open, repaired or resolved' }).optional(),
  kind: z.enum(FINDING_KINDS, { error: `kind must be one of ${FINDING_KINDS.join(', ')}` }).optional(),
});

export const exceptionListQuerySchema = cursorQuerySchema.extend(exceptionFilterSchema.shape);

const instant = (name: string) =>
  z.iso.datetime({ offset: true, error: `${name} must be an ISO 8601 timestamp` }).transform((text) => new Date(text));

/** Optional as a whole: a POST without a body asks for the default window. */
export const runRequestBodySchema = z.object({ from: instant('from').optional(), to: instant('to').optional() }).optional();

export const decisionBodySchema = z.object({
  note: z
    .string({ error: 'note is required' })
    .trim()
    .min(1, { error: 'note is required' })
    .max(1_000, { error: 'note must be at most 1000 characters' }),
});

export const runSchema = z.object({
  ID: z.uuid(),
  ParentRunID: z.uuid().nullable(),
  Trigger: z.enum(['schedule', 'cli', 'tenant', 'operator']),
  /** The dashboard user who asked for the run (`operator` runs); null for the others. */
  RequestedBy: z.string().nullable(),
  WindowFrom: timestampSchema,
  WindowTo: timestampSchema,
  Status: z.enum(['pending', 'running', 'succeeded', 'failed']),
  Outcome: z.enum(['clean', 'repaired', 'exceptions', 'alert']).nullable(),
  ProviderTransactions: z.number().int(),
  Matched: z.number().int(),
  Repaired: z.number().int(),
  Reported: z.number().int(),
  Alerts: z.number().int(),
  InFlight: z.number().int(),
  Lookups: z.number().int(),
  DaysCompared: z.number().int().nullable(),
  DaysDiffering: z.number().int().nullable(),
  Error: z.string().nullable(),
  CreatedAt: timestampSchema,
  StartedAt: timestampSchema.nullable(),
  FinishedAt: timestampSchema.nullable(),
});
export type RunView = z.infer<typeof runSchema>;

export const exceptionSchema = z.object({
  ID: z.uuid(),
  Kind: z.string(),
  Title: z.string(),
  Severity: z.enum(['alert', 'warning', 'info']),
  Status: z.enum(['open', 'repaired', 'resolved']),
  Subject: z.string(),
  AccountRef: z.string().nullable(),
  EntryID: z.uuid().nullable(),
  MerchantTxRef: z.string().nullable(),
  ProviderTxnID: z.string().nullable(),
  Details: z.record(z.string(), z.unknown()),
  FirstRunID: z
    .uuid()
    .nullable()
    .describe('Null for a finding raised outside any run (the settlement watch, a parked settlement run) until a run meets it'),
  LastRunID: z.uuid().nullable(),
  PlatformDecides: z
    .boolean()
    .describe("Money left the platform's float without a debit: only the platform operator resolves it; the tenant reads it"),
  Occurrences: z.number().int(),
  RepairEntryID: z.uuid().nullable(),
  Resolution: z.enum(['noted', 'compensated', 'no_longer_found']).nullable(),
  ResolutionNote: z.string().nullable(),
  ResolvedBy: z.string().nullable(),
  ResolvedVia: z.string().nullable(),
  ResolvedAt: timestampSchema.nullable(),
  CreatedAt: timestampSchema,
  UpdatedAt: timestampSchema,
});
export type ExceptionView = z.infer<typeof exceptionSchema>;

const dayDifferenceSchema = z.object({
  AccountRef: z.string(),
  Day: z.string(),
  ProviderCount: z.number().int(),
  ProviderGross: moneySchema,
  ProviderFee: moneySchema,
  LedgerCount: z.number().int(),
  LedgerGross: moneySchema,
  LedgerFee: moneySchema,
});

export const runListResponseSchema = z.object({ runs: z.array(runSchema), pagination: paginationSchema });

export const runDetailResponseSchema = z.object({
  run: runSchema,
  exceptions: z.array(exceptionSchema),
  pagination: paginationSchema,
  dayTotalDifferences: z.array(dayDifferenceSchema),
});

/**
 * The dashboard's run: the same, with the id of the run's own workflow (a tenant's share of a platform
 * run has none). No link into the Temporal UI: it shows every tenant's workflows, so it is the platform
 * operator's alone.
 */
export const dashboardRunDetailResponseSchema = runDetailResponseSchema.extend({
  workflow: z.object({ workflowId: z.string() }).nullable(),
});

export const runAcceptedResponseSchema = z.object({ run: runSchema });

export const exceptionListResponseSchema = z.object({ exceptions: z.array(exceptionSchema), pagination: paginationSchema });

export const exceptionResponseSchema = z.object({ exception: exceptionSchema });

/** One finding, with the tenant's runs that met it (newest first, at most 20). */
export const exceptionDetailResponseSchema = z.object({ exception: exceptionSchema, runs: z.array(runSchema) });
