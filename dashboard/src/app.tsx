import { LocationProvider, Route, Router } from 'preact-iso';
import { useCallback, useEffect, useState } from 'preact/hooks';
import { api, ApiError, whenSessionEnds } from './api';
import type { SessionInfo } from './api-types';
import { Layout } from './components/layout';
import { ErrorBox, Loading } from './components/state';
import { AccountPage } from './pages/account';
import { AccountsPage } from './pages/accounts';
import { ApiKeysPage } from './pages/api-keys';
import { AuditLogPage } from './pages/audit-log';
import { BooksPage } from './pages/books';
import { CustomerPage } from './pages/customer';
import { CustomersPage } from './pages/customers';
import { DeliveryPage } from './pages/delivery';
import { FeesPage } from './pages/fees';
import { KycReviewsPage } from './pages/kyc-reviews';
import { ApprovalsPage } from './pages/approvals';
import { ScheduledPayoutsPage } from './pages/scheduled-payouts';
import { HeldMoneyPage } from './pages/held-money';
import { MisdirectedPage } from './pages/misdirected';
import { BeneficiariesPage } from './pages/beneficiaries';
import { NewSettlementPage } from './pages/new-settlement';
import { NewTransferPage } from './pages/new-transfer';
import { NotFoundPage } from './pages/not-found';
import { OverviewPage } from './pages/overview';
import { PasswordPage } from './pages/password';
import { ReconciliationExceptionPage } from './pages/reconciliation-exception';
import { ReconciliationExceptionsPage } from './pages/reconciliation-exceptions';
import { ReconciliationRunPage } from './pages/reconciliation-run';
import { ReconciliationRunsPage } from './pages/reconciliation-runs';
import { ResetPasswordPage } from './pages/reset-password';
import { SettlementPage } from './pages/settlement';
import { SettlementBatchPage } from './pages/settlement-batch';
import { SettlementBatchesPage } from './pages/settlement-batches';
import { SettlementsPage } from './pages/settlements';
import { MustEnrolPage, SecondFactorPage } from './pages/second-factor';
import { SignInPage } from './pages/sign-in';
import { TransfersPage } from './pages/transfers';
import { TwoFactorPage } from './pages/two-factor';
import { UsersPage } from './pages/users';
import { VelocityRulesPage } from './pages/velocity-rules';
import { WebhookEndpointsPage } from './pages/webhook-endpoints';
import { WebhooksPage } from './pages/webhooks';
import { IdleTimeout, SessionContext } from './session';

type SessionState =
  | { status: 'checking' }
  | { status: 'signed-out'; message?: string }
  | { status: 'failed'; message: string }
  | { status: 'signed-in'; session: SessionInfo };

export function App() {
  const [state, setState] = useState<SessionState>({ status: 'checking' });

  const check = useCallback(() => {
    setState({ status: 'checking' });
    api<SessionInfo>('GET', '/auth/session', { expectUnauthorized: true }).then(
      (session) => setState({ status: 'signed-in', session }),
      (error: ApiError) => setState(error.status === 401 ? { status: 'signed-out' } : { status: 'failed', message: error.message }),
    );
  }, []);

  const signedOut = useCallback((message?: string) => setState({ status: 'signed-out', ...(message ? { message } : {}) }), []);
  const idle = useCallback(() => setState({ status: 'signed-out', message: 'You were signed out after a period without activity.' }), []);

  useEffect(() => {
    whenSessionEnds(() =>
      setState((current) =>
        current.status === 'signed-in' ? { status: 'signed-out', message: 'Your session has ended. Sign in again.' } : current,
      ),
    );
    check();
  }, [check]);

  if (state.status === 'checking') {
    return (
      <main id="main" class="centered">
        <Loading what="the dashboard" />
      </main>
    );
  }
  if (state.status === 'failed') {
    return (
      <main id="main" class="centered">
        <h1>NUBAN ledger</h1>
        <ErrorBox message={state.message} onRetry={check} />
      </main>
    );
  }
  if (state.status === 'signed-out' && location.pathname.replace(/\/$/, '') === '/dashboard/reset-password')
    return <ResetPasswordPage onDone={signedOut} />;
  if (state.status === 'signed-out') return <SignInPage {...(state.message ? { message: state.message } : {})} onSignedIn={check} />;
  if (state.session.stage === 'awaiting_code') return <SecondFactorPage onSignedIn={check} onSignedOut={() => signedOut()} />;
  if (state.session.stage === 'must_enrol') return <MustEnrolPage onEnrolled={check} onSignedOut={() => signedOut()} />;

  return (
    <SessionContext.Provider value={state.session}>
      <IdleTimeout seconds={state.session.idleTimeoutSeconds} onIdle={idle}>
        <LocationProvider>
          <Layout onSignedOut={signedOut}>
            <Router>
              <Route path="/dashboard" component={OverviewPage} />
              <Route path="/dashboard/accounts" component={AccountsPage} />
              <Route path="/dashboard/accounts/:accountRef" component={AccountPage} />
              <Route path="/dashboard/accounts/:accountRef/settle" component={NewSettlementPage} />
              <Route path="/dashboard/accounts/:accountRef/transfer" component={NewTransferPage} />
              <Route path="/dashboard/settlements" component={SettlementsPage} />
              <Route path="/dashboard/beneficiaries" component={BeneficiariesPage} />
              <Route path="/dashboard/scheduled-payouts" component={ScheduledPayoutsPage} />
              <Route path="/dashboard/transfers" component={TransfersPage} />
              <Route path="/dashboard/settlements/:merchantTxRef" component={SettlementPage} />
              <Route path="/dashboard/approvals" component={ApprovalsPage} />
              <Route path="/dashboard/velocity-rules" component={VelocityRulesPage} />
              <Route path="/dashboard/settlement-batches" component={SettlementBatchesPage} />
              <Route path="/dashboard/settlement-batches/:id" component={SettlementBatchPage} />
              <Route path="/dashboard/books" component={BooksPage} />
              <Route path="/dashboard/customers" component={CustomersPage} />
              <Route path="/dashboard/customers/:id" component={CustomerPage} />
              <Route path="/dashboard/kyc-reviews" component={KycReviewsPage} />
              <Route path="/dashboard/held-money" component={HeldMoneyPage} />
              <Route path="/dashboard/misdirected" component={MisdirectedPage} />
              <Route path="/dashboard/reconciliation" component={ReconciliationRunsPage} />
              <Route path="/dashboard/reconciliation/runs/:id" component={ReconciliationRunPage} />
              <Route path="/dashboard/reconciliation/exceptions" component={ReconciliationExceptionsPage} />
              <Route path="/dashboard/reconciliation/exceptions/:id" component={ReconciliationExceptionPage} />
              <Route path="/dashboard/webhooks" component={WebhooksPage} />
              <Route path="/dashboard/webhooks/deliveries/:id" component={DeliveryPage} />
              <Route path="/dashboard/webhook-endpoints" component={WebhookEndpointsPage} />
              <Route path="/dashboard/fees" component={FeesPage} />
              <Route path="/dashboard/api-keys" component={ApiKeysPage} />
              <Route path="/dashboard/users" component={UsersPage} />
              <Route path="/dashboard/audit-log" component={AuditLogPage} />
              <Route path="/dashboard/password" component={PasswordPage} />
              <Route path="/dashboard/two-factor" component={TwoFactorPage} />
              <Route default component={NotFoundPage} />
            </Router>
          </Layout>
        </LocationProvider>
      </IdleTimeout>
    </SessionContext.Provider>
  );
}
