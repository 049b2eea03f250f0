import { createAuditLog } from '../audit/audit-log';
import { accountRefParamsSchema } from '../accounts/accounts.schemas';
import { defineRoute, idempotencyKeyOf, userOf, type RouteDefinition } from '../http/route';
import { paginate, uuidCursor } from '../http/pagination';
import type { Db } from '../db';
import { validIdempotencyKey } from '../idempotency/request-hash';
import { formatKobo } from '../money';
import { createSettlementReadsRepo } from './settlement-reads.repo';
import {
  presentAcceptedSettlement,
  presentAccountName,
  presentBank,
  presentSettlementAttempt,
  presentSettlementListItem,
  presentStatusChange,
  presentSettlementDetail,
} from './settlement.presenter';
import {
  dashboardSettleBodySchema,
  settlementDetailSchema,
  settlementListQuerySchema,
  settlementListResponseSchema,
} from './settlements.dashboard.schemas';
import {
  banksResponseSchema,
  lookupBodySchema,
  lookupResponseSchema,
  settleResponseSchema,
  settlementRefParamsSchema,
} from './settlements.schemas';
import type { SettlementsService } from './settlements.service';
import { settlementWorkflowId } from '../contracts/settlement.contract';

const PAGE_SIZE = 25;

export function settlementsDashboardRoutes(deps: { db: Db; settlements: SettlementsService }): RouteDefinition[] {
  const { settlements } = deps;
  const reads = createSettlementReadsRepo(deps.db);
  return [
    defineRoute({
      method: 'get',
      path: '/auth/settlements',
      summary: "The tenant's settlements, newest first, optionally of one status and carrying every metadata[key]=value given",
      tag: 'dashboard',
      auth: 'session',
      query: settlementListQuerySchema,
      responses: { 200: { description: 'A page of settlements', schema: settlementListResponseSchema } },
      errors: [400],
      handle: async ({ query, ctx }) => {
        const tenantId = userOf(ctx).tenantId;
        const rows = await reads.list(tenantId, query.status ?? null, uuidCursor(query.after), PAGE_SIZE + 1, query.metadata);
        const page = paginate(rows, PAGE_SIZE, (row) => row.id);
        return {
          status: 200,
          body: {
            settlements: page.items.map(presentSettlementListItem),
            pagination: page.pagination,
          },
        };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/auth/settlements/banks',
      summary: 'Banks a settlement can pay into (as GET /v1/transfers/banks)',
      tag: 'dashboard',
      auth: 'session',
      responses: { 200: { description: 'The banks', schema: banksResponseSchema } },
      handle: async () => ({ status: 200, body: { banks: (await settlements.banks()).map(presentBank) } }),
    }),
    defineRoute({
      method: 'post',
      path: '/auth/settlements/lookup',
      summary: 'The name on a destination account, shown before a settlement is confirmed (as POST /v1/transfers/lookup)',
      tag: 'dashboard',
      auth: 'session',
      permission: 'move_money',
      body: lookupBodySchema,
      responses: { 200: { description: 'The account name', schema: lookupResponseSchema } },
      errors: [400, 404, 429],
      handle: async ({ body, ctx }) => {
        const found = await settlements.lookupAccount(userOf(ctx).tenantId, body.accountNumber, body.bankCode);
        return { status: 200, body: presentAccountName(found) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/auth/settlements/:merchantTxRef',
      summary: 'One settlement with its attempts, status history and workflow',
      tag: 'dashboard',
      auth: 'session',
      params: settlementRefParamsSchema,
      responses: { 200: { description: 'The settlement', schema: settlementDetailSchema } },
      errors: [404],
      handle: async ({ params, ctx }) => {
        const settlement = await settlements.find(userOf(ctx).tenantId, params.merchantTxRef);
        const [attempts, history, providerTransferId] = await Promise.all([
          reads.attempts(settlement.id),
          reads.statusHistory(settlement.id),
          reads.providerTransferId(settlement.id),
        ]);
        const workflowId = settlementWorkflowId(settlement.merchantTxRef);
        return {
          status: 200,
          body: {
            transfer: presentSettlementDetail(settlement, providerTransferId),
            attempts: attempts.map(presentSettlementAttempt),
            statusHistory: history.map(presentStatusChange),
            workflow: { workflowId },
          },
        };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/auth/accounts/:accountRef/settle',
      summary:
        'Pay out from the account (as POST /v1/accounts/{accountRef}/settle) once the name the operator confirmed is still the name a fresh lookup gives (else 409), or to a saved beneficiary; audited with the settlement, once',
      tag: 'dashboard',
      auth: 'session',
      permission: 'move_money',
      params: accountRefParamsSchema,
      body: dashboardSettleBodySchema,
      idempotencyKey: true,
      responses: { 202: { description: 'Accepted', schema: settleResponseSchema } },
      errors: [400, 403, 404, 409, 429],
      handle: async ({ params, body, ctx }) => {
        const user = userOf(ctx);
        const key = validIdempotencyKey(idempotencyKeyOf(ctx));
        if (body.to === 'beneficiary') {
          const toBeneficiary = await settlements.initiateToBeneficiary(user.tenantId, params.accountRef, body, key, {
            confirmedAccountName: body.confirmedAccountName,
            maker: { kind: 'user', user },
            onCreated: (trx, made, paid) =>
              createAuditLog(trx).record(
                user,
                'settlement.initiated',
                { type: 'settlement', id: made.merchantTxRef },
                {
                  accountRef: made.accountRef,
                  amount: formatKobo(made.amount),
                  beneficiaryId: body.beneficiaryId,
                  bankCode: paid.bankCode,
                  accountNumber: paid.accountNumber,
                  accountName: paid.accountName,
                  idempotencyKey: key ?? null,
                },
              ),
          });
          return { status: 202, body: presentAcceptedSettlement(toBeneficiary) };
        }
        const { amount, bankCode, accountNumber, narration, confirmedAccountName, scheduledFor } = body;
        const request = { amount, bankCode, accountNumber, narration, confirmedAccountName, scheduledFor };
        const settlement = await settlements.initiateConfirmed(
          user.tenantId,
          params.accountRef,
          request,
          key,
          (trx, made) =>
            createAuditLog(trx).record(
              user,
              'settlement.initiated',
              { type: 'settlement', id: made.merchantTxRef },
              {
                accountRef: made.accountRef,
                amount: formatKobo(made.amount),
                bankCode: body.bankCode,
                accountNumber: body.accountNumber,
                confirmedAccountName: body.confirmedAccountName,
                idempotencyKey: key ?? null,
              },
            ),
          { kind: 'user', user },
        );
        return { status: 202, body: presentAcceptedSettlement(settlement) };
      },
    }),
  ];
}
