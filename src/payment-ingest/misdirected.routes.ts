import { defineRoute, userOf, type RouteDefinition } from '../http/route';
import { paginate, uuidCursor } from '../http/pagination';
import { formatKobo } from '../money';
import {
  assignBodySchema,
  assignResponseSchema,
  misdirectedListQuerySchema,
  misdirectedListResponseSchema,
  misdirectedParamsSchema,
  type MisdirectedPaymentView,
} from './misdirected.schemas';
import type { MisdirectedPayment, MisdirectedService } from './misdirected.service';

const PAGE_SIZE = 50;

function present(payment: MisdirectedPayment): MisdirectedPaymentView {
  return {
    ID: payment.id,
    RequestID: payment.requestId,
    AliasAccountRef: payment.aliasAccountRef,
    TransactionID: payment.transactionId,
    SenderName: payment.senderName,
    Narration: payment.narration,
    GrossAmount: payment.grossAmount === null ? null : formatKobo(payment.grossAmount),
    Fee: payment.fee === null ? null : formatKobo(payment.fee),
    ReceivedAt: payment.receivedAt.toISOString(),
    AssignedAccountRef: payment.assignedAccountRef,
    AssignedEntryID: payment.assignedEntryId,
    AssignedAt: payment.assignedAt?.toISOString() ?? null,
  };
}

export function misdirectedRoutes(deps: { misdirected: MisdirectedService }): RouteDefinition[] {
  const { misdirected } = deps;
  return [
    defineRoute({
      method: 'get',
      path: '/auth/misdirected-payments',
      summary: "Signed payments that matched no account, attributed to the operator's tenant by their reference",
      tag: 'payments',
      auth: 'session',
      query: misdirectedListQuerySchema,
      responses: { 200: { description: 'Newest first', schema: misdirectedListResponseSchema } },
      errors: [400, 403],
      handle: async ({ query, ctx }) => {
        const page = paginate(
          await misdirected.list(userOf(ctx).tenantId, uuidCursor(query.after), PAGE_SIZE),
          PAGE_SIZE,
          (payment) => payment.id,
        );
        return { status: 200, body: { misdirectedPayments: page.items.map(present), pagination: page.pagination } };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/auth/misdirected-payments/:id/assign',
      summary: "Post a misdirected payment to one of the tenant's accounts (once only; audited)",
      tag: 'payments',
      auth: 'session',
      permission: 'operate',
      params: misdirectedParamsSchema,
      body: assignBodySchema,
      responses: { 201: { description: 'The credit posted', schema: assignResponseSchema } },
      errors: [400, 403, 404, 409],
      handle: async ({ params, body, ctx }) => {
        const assigned = await misdirected.assign(userOf(ctx), params.id, body.accountRef);
        return { status: 201, body: { ID: assigned.eventId, EntryID: assigned.entryId, AccountRef: assigned.accountRef } };
      },
    }),
  ];
}
