import { API_KEY_ACTOR, createAuditLog } from '../audit/audit-log';
import { apiKeyIdOf, defineRoute, idempotencyKeyOf, tenantOf, userOf, type RouteDefinition } from '../http/route';
import { presentMetadata } from '../http/metadata';
import { requiredIdempotencyKey } from '../idempotency/request-hash';
import { formatKobo } from '../money';
import {
  paymentParamsSchema,
  refundBodySchema,
  refundListQuerySchema,
  refundListSchema,
  refundLookupBodySchema,
  refundLookupSchema,
  refundSchema,
} from './refunds.schemas';
import type { Refund, RefundsService } from './refunds.service';

const presentRefund = (refund: Refund) => ({
  refundId: refund.id,
  transactionGroupId: refund.transactionGroupId,
  accountRef: refund.accountRef,
  amount: formatKobo(refund.amount),
  currency: 'NGN' as const,
  reason: refund.reason,
  status: refund.status,
  failureReason: refund.failureReason,
  merchantTxRef: refund.merchantTxRef,
  ...presentMetadata('metadata', refund.metadata),
  createdAt: refund.createdAt.toISOString(),
});

const auditDetail = (refund: {
  transactionGroupId: string;
  accountRef: string;
  amount: bigint;
  merchantTxRef: string;
  reason: string;
}) => ({
  transactionGroupId: refund.transactionGroupId,
  accountRef: refund.accountRef,
  amount: formatKobo(refund.amount),
  merchantTxRef: refund.merchantTxRef,
  reason: refund.reason,
});

const CREATE_SUMMARY =
  "Refund part or all of a confirmed payment to its payer: a settlement to the payer's account as the payment names it, once the provider names that account as the payment names the payer; never more than the payment credited less its refunds that have not failed";

const createResponses = {
  202: {
    description:
      "The refund, its settlement accepted (pending), or under the tenant's approval policy awaiting_approval (its amount reserved until a second person approves it); a retry under the same key answers it again",
    schema: refundSchema,
  },
};

export function refundsRoutes(deps: { refunds: RefundsService }): RouteDefinition[] {
  const { refunds } = deps;
  return [
    defineRoute({
      method: 'post',
      path: '/v1/payments/:transactionGroupId/refunds',
      summary: CREATE_SUMMARY,
      tag: 'refunds',
      auth: 'apiKey',
      scope: 'payouts:write',
      params: paymentParamsSchema,
      body: refundBodySchema,
      idempotencyKey: 'required',
      responses: createResponses,
      errors: [400, 403, 404, 409, 422, 429],
      handle: async ({ params, body, ctx }) => {
        const key = requiredIdempotencyKey(idempotencyKeyOf(ctx));
        const tenantId = tenantOf(ctx).id;
        const refund = await refunds.create(tenantId, params.transactionGroupId, body, key, {
          maker: { kind: 'api_key', apiKeyId: apiKeyIdOf(ctx) },
          audited: (trx, made) =>
            createAuditLog(trx).recordAs(
              tenantId,
              API_KEY_ACTOR,
              'payment.refunded',
              { type: 'payment', id: made.transactionGroupId },
              auditDetail(made),
            ),
        });
        return { status: 202, body: presentRefund(refund) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/payments/:transactionGroupId/refunds',
      summary:
        "A payment's refunds, oldest first, with their settlements' statuses, and what may still be refunded of it; with metadata[key]=value, only the refunds carrying every pair given",
      tag: 'refunds',
      auth: 'apiKey',
      params: paymentParamsSchema,
      query: refundListQuerySchema,
      responses: { 200: { description: "The payment's refunds", schema: refundListSchema } },
      errors: [400, 404],
      handle: async ({ params, query, ctx }) => {
        const found = await refunds.ofPayment(tenantOf(ctx).id, params.transactionGroupId, query.metadata);
        return { status: 200, body: presentRefundList(found) };
      },
    }),
  ];
}

const presentRefundList = (found: Awaited<ReturnType<RefundsService['ofPayment']>>) => ({
  transactionGroupId: found.transactionGroupId,
  accountRef: found.accountRef,
  refundable: formatKobo(found.refundable),
  refunds: found.refunds.map(presentRefund),
});

/** The dashboard's refund of a payment line: the payer's account looked up first, then the refund (audited as the operator). */
export function refundsDashboardRoutes(deps: { refunds: RefundsService }): RouteDefinition[] {
  const { refunds } = deps;
  return [
    defineRoute({
      method: 'get',
      path: '/auth/payments/:transactionGroupId/refunds',
      summary: "A payment's refunds and what may still be refunded of it (as GET /v1/payments/{transactionGroupId}/refunds)",
      tag: 'dashboard',
      auth: 'session',
      params: paymentParamsSchema,
      responses: { 200: { description: "The payment's refunds", schema: refundListSchema } },
      errors: [404],
      handle: async ({ params, ctx }) => ({
        status: 200,
        body: presentRefundList(await refunds.ofPayment(userOf(ctx).tenantId, params.transactionGroupId)),
      }),
    }),
    defineRoute({
      method: 'post',
      path: '/auth/payments/:transactionGroupId/refunds/lookup',
      summary:
        "Where a refund would go: the payer's account, the provider's name for it now, whether that is the payer's name, and what may be refunded",
      tag: 'dashboard',
      auth: 'session',
      permission: 'move_money',
      params: paymentParamsSchema,
      body: refundLookupBodySchema,
      responses: { 200: { description: "The payer's account as the provider names it", schema: refundLookupSchema } },
      errors: [400, 403, 404, 409, 422, 429],
      handle: async ({ params, body, ctx }) => {
        const found = await refunds.destination(userOf(ctx).tenantId, params.transactionGroupId, body.bankCode);
        return {
          status: 200,
          body: {
            transactionGroupId: found.transactionGroupId,
            accountRef: found.accountRef,
            refundable: formatKobo(found.refundable),
            payerName: found.payer.payerName,
            bankCode: found.payer.bankCode,
            accountNumber: found.payer.accountNumber,
            accountName: found.payer.accountName,
            namesMatch: found.payer.namesMatch,
          },
        };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/auth/payments/:transactionGroupId/refunds',
      summary: `${CREATE_SUMMARY} (as POST /v1/payments/{transactionGroupId}/refunds; audited as the operator)`,
      tag: 'dashboard',
      auth: 'session',
      permission: 'move_money',
      params: paymentParamsSchema,
      body: refundBodySchema,
      idempotencyKey: 'required',
      responses: createResponses,
      errors: [400, 403, 404, 409, 422, 429],
      handle: async ({ params, body, ctx }) => {
        const user = userOf(ctx);
        const key = requiredIdempotencyKey(idempotencyKeyOf(ctx));
        const refund = await refunds.create(user.tenantId, params.transactionGroupId, body, key, {
          maker: { kind: 'user', user },
          audited: (trx, made) =>
            createAuditLog(trx).record(user, 'payment.refunded', { type: 'payment', id: made.transactionGroupId }, auditDetail(made)),
        });
        return { status: 202, body: presentRefund(refund) };
      },
    }),
  ];
}
