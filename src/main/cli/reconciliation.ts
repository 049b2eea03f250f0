import { presentEntry } from '../../accounts/entry.presenter';
import { formatKobo } from '../../money';
import { presentException, presentRun } from '../../reconciliation/reconciliation.presenter';
import { exceptionFilterSchema } from '../../reconciliation/reconciliation.schemas';
import { temporalUiLink } from '../../temporal/temporal-ui-link';
import { instantOption, optional, text, UsageError, type Command } from './command';

/** Operator runs and the findings they leave; operator runs are not rate limited. */
export const reconciliationCommands: Record<string, Command> = {
  reconcile: {
    everyCluster: true,
    usage:
      'reconcile [--from ISO] [--to ISO] [--tenant TENANT_ID] [--no-wait] [--json]   (default: the look-back window up to now; the platform unless --tenant)',
    options: { from: { type: 'string' }, to: { type: 'string' }, tenant: { type: 'string' }, 'no-wait': { type: 'boolean' } },
    async run(context) {
      const { reconciliation, starter } = context.services;
      const { run, job } = await reconciliation.requestOperatorRun(optional(context, 'tenant') ?? null, {
        from: instantOption(context, 'from'),
        to: instantOption(context, 'to'),
      });
      // Started here and waited for; a start that fails is left in the outbox for the worker's convergence check.
      await starter.start(job);
      await starter.close();
      // The CLI is the platform operator's: it links into the Temporal UI, which the dashboard never does.
      const temporalUiUrl = temporalUiLink(context.config, job.workflowId);
      if (context.options['no-wait']) {
        context.print(`reconciliation run ${run.id} started (workflow ${job.workflowId}: ${temporalUiUrl})`, {
          run: presentRun(run),
          temporalUiUrl,
        });
        return;
      }
      let failure: string | null = null;
      await context.temporal.workflow
        .getHandle(job.workflowId)
        .result()
        .catch((error: unknown) => {
          failure = error instanceof Error ? (error.cause instanceof Error ? error.cause.message : error.message) : String(error);
        });
      const finished = (await reconciliation.find(run.id))!;
      const findings = await reconciliation.findingsOfRun(run.id, 10_000);
      const byKind = findings.reduce<Record<string, number>>(
        (counts, finding) => ({ ...counts, [finding.kind]: (counts[finding.kind] ?? 0) + 1 }),
        {},
      );
      const view = presentRun(finished);
      const human = [
        `reconciliation run ${view.ID} ${view.Status}${view.Outcome ? ` (${view.Outcome})` : ''}: ${view.WindowFrom} to ${view.WindowTo}`,
        `  provider transactions ${view.ProviderTransactions}, matched ${view.Matched}, repaired ${view.Repaired}, reported ${view.Reported} (alerts ${view.Alerts}), in flight ${view.InFlight}, lookups ${view.Lookups}, days differing ${view.DaysDiffering ?? '-'}`,
        ...Object.entries(byKind).map(([kind, count]) => `  ${kind}: ${count}`),
        ...(failure ? [`  failed: ${failure}`] : []),
        `  workflow ${job.workflowId}: ${temporalUiUrl}`,
      ].join('\n');
      context.print(human, { run: view, findings: byKind, temporalUiUrl });
      if (view.Status !== 'succeeded') process.exitCode = 1;
    },
  },
  'reconcile:exceptions': {
    everyCluster: true,
    usage:
      "reconcile:exceptions [--tenant TENANT_ID | --all-tenants] [--status open|repaired|resolved] [--kind KIND] [--json]   (the platform's own findings unless --tenant; every tenant's and the platform's with --all-tenants)",
    options: { tenant: { type: 'string' }, 'all-tenants': { type: 'boolean' }, status: { type: 'string' }, kind: { type: 'string' } },
    async run(context) {
      // The API's filter schema, so the CLI takes exactly the statuses and kinds the dashboard does.
      const filter = exceptionFilterSchema.safeParse({ status: optional(context, 'status'), kind: optional(context, 'kind') });
      if (!filter.success) throw new UsageError(`--${filter.error.issues[0]!.message}`);
      if (context.options['all-tenants'] && optional(context, 'tenant'))
        throw new UsageError('--tenant and --all-tenants cannot go together');
      const { reconciliation } = context.services;
      const findings = context.options['all-tenants']
        ? await reconciliation.listAllExceptions(filter.data, null, 1_000)
        : await reconciliation.listExceptions(optional(context, 'tenant') ?? null, filter.data, null, 1_000);
      const human = findings.length
        ? findings
            .map(
              (finding) =>
                `${finding.id}  ${finding.status.padEnd(8)} ${finding.severity.padEnd(7)} ${finding.kind}  ${finding.subject}  x${finding.occurrences}  tenant ${finding.tenantId ?? '-'}`,
            )
            .join('\n')
        : 'no reconciliation findings';
      context.print(human, { exceptions: findings.map(presentException) });
    },
  },
  'reconcile:resolve': {
    usage:
      "reconcile:resolve --exception ID --note TEXT [--tenant TENANT_ID]   (closes an open finding with a note; the platform's own unless --tenant)",
    options: { exception: { type: 'string' }, note: { type: 'string' }, tenant: { type: 'string' } },
    required: ['exception', 'note'],
    async run(context) {
      const finding = await context.services.reconciliation.resolve(
        { via: 'cli', tenantId: optional(context, 'tenant') ?? null },
        text(context, 'exception'),
        text(context, 'note').trim(),
      );
      context.print(`resolved ${finding.id} (${finding.kind})`, { exception: presentException(finding) });
    },
  },
  'reconcile:compensate': {
    usage:
      'reconcile:compensate --exception ID --tenant TENANT_ID --note TEXT   (posts the compensating debit of a confirmed credit the provider failed or refunded, and resolves the finding)',
    options: { exception: { type: 'string' }, note: { type: 'string' }, tenant: { type: 'string' } },
    required: ['exception', 'tenant', 'note'],
    async run(context) {
      const { finding, entry } = await context.services.reconciliation.compensate(
        { via: 'cli', tenantId: text(context, 'tenant') },
        text(context, 'exception'),
        text(context, 'note').trim(),
      );
      context.print(`compensated ${finding.id} with debit ${entry.id} of ${formatKobo(entry.amount)}`, {
        exception: presentException(finding),
        entry: presentEntry(entry),
      });
    },
  },
};
