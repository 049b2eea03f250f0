// Import boundaries of the server code (src/, activities/, workflows/, knexfile.ts) and of the TypeScript client (sdk/), checked by `npm
// run lint`.
// The layers below are data: each layer may import itself and any layer listed before it, never one after it.
// Sources are read with the swc parser: the TypeScript parser needs the TypeScript 5 compiler API, which
// TypeScript 7 no longer ships. The releases of dependency-cruiser that run on Node 20 do not mark type-only
// imports when parsing with swc and cannot read .tsx, so the boundaries that must be crossed by types only
// (workflows -> activities, the dashboard front end -> src/) are checked by scripts/lib/type-only-imports.mjs.

/** The bottom layer: building blocks that know nothing of the layers above (config uses src/net/'s address policy). */
const PURE = [
  'src/(money|ids|errors|duration|logger|timeout|like-pattern|crypto|loose-index-scan|account-names)\\.ts$',
  'src/net/',
  'src/config(\\.ts$|/)',
];

/** Pure modules a workflow may import: no side effects, nothing non-deterministic. */
const WORKFLOW_SAFE = ['src/(money|errors|duration)\\.ts$'];

/** Workflow contracts are bundled into workflow code: bottom-layer modules, provider types and the Temporal SDK only. */
const CONTRACT_SAFE = [...PURE, 'src/provider/provider-answers\\.ts$', 'node_modules/@temporalio/(common|workflow)/'];

/** The provider's wire format, which the sandbox provider speaks. */
const PROVIDER_WIRE = [
  'src/provider/provider\\.types\\.ts$',
  'src/provider/spec-provider/(provider\\.schemas|webhook-signature|spec-provider\\.types)\\.ts$',
];

/**
 * Bottom-up. Each layer names its units (folders or files); units of one layer may import each other unless
 * the layer keeps its `siblingsApart`.
 */
const LAYERS = [
  { name: 'pure', units: { pure: PURE } },
  {
    name: 'infrastructure',
    units: {
      infrastructure: [
        'src/db\\.ts$',
        'src/temporal/',
        'src/http/',
        'src/metrics/',
        'src/encryption/',
        'src/idempotency/',
        'src/rate-limits/',
        'src/notification-listener\\.ts$',
        'src/read-routing/',
        'knexfile\\.ts$',
      ],
    },
  },
  { name: 'provider', units: { provider: ['src/provider/'] } },
  { name: 'contracts', units: { contracts: ['src/contracts/'] } },
  {
    // Rules about money: each policy reads facts and returns a decision (or SQL building one); pure, and apart from each other.
    name: 'policies',
    siblingsApart: true,
    units: {
      'kyc-limits policy': ['src/policies/kyc-limits/'],
      'dynamic-account-amount policy': ['src/policies/dynamic-account-amount/'],
      'customer-standing policy': ['src/policies/customer-standing/'],
      'account-freeze policy': ['src/policies/account-freeze/'],
      'split-rule policy': ['src/policies/split-rule/'],
      'payout-approval policy': ['src/policies/payout-approval/'],
      'batch-approval policy': ['src/policies/batch-approval/'],
      'velocity policy': ['src/policies/velocity/'],
      'payment-refund policy': ['src/policies/payment-refund/'],
      'scheduled-payout policy': ['src/policies/scheduled-payout/'],
    },
  },
  { name: 'workflow starts', units: { 'workflow-starts': ['src/workflow-starts/'] } },
  { name: 'ledger', units: { ledger: ['src/ledger/'] } },
  { name: 'events', units: { events: ['src/events/'] } },
  { name: 'audit', units: { audit: ['src/audit/'] } },
  { name: 'auth', units: { auth: ['src/auth/'] } },
  { name: 'fees', units: { fees: ['src/fees/'] } },
  { name: 'customers', units: { customers: ['src/customers/'] } },
  { name: 'accounts', units: { accounts: ['src/accounts/'] } },
  // Money paid back to a payer (the payer's account from the payment, the name check, the settlement): below the held
  // money's returns and the refunds that use it.
  { name: 'payer returns', units: { 'payer-returns': ['src/payer-returns/'] } },
  { name: 'kyc limits', units: { 'kyc-limits': ['src/kyc-limits/'] } },
  { name: 'dynamic accounts', units: { 'dynamic-accounts': ['src/dynamic-accounts/'] } },
  { name: 'beneficiaries', units: { beneficiaries: ['src/beneficiaries/'] } },
  { name: 'approval policies', units: { 'approval-policies': ['src/approval-policies/'] } },
  { name: 'velocity rules', units: { 'velocity-rules': ['src/velocity-rules/'] } },
  // What the approvals of payouts and of transfers share, below both (which never import each other).
  { name: 'approvals shared', units: { 'approvals-shared': ['src/approvals-shared/'] } },
  { name: 'payment confirmation', units: { 'payment-confirmation': ['src/payment-confirmation/'] } },
  {
    name: 'money movement',
    siblingsApart: true,
    units: {
      'payment-ingest': ['src/payment-ingest/'],
      settlements: ['src/settlements/'],
      'internal-transfers': ['src/internal-transfers/'],
    },
  },
  { name: 'split rules', units: { 'split-rules': ['src/split-rules/'] } },
  { name: 'refunds', units: { refunds: ['src/refunds/'] } },
  { name: 'liens', units: { liens: ['src/liens/'] } },
  { name: 'balance sweeps', units: { 'balance-sweeps': ['src/balance-sweeps/'] } },
  { name: 'settlement batches', units: { 'settlement-batches': ['src/settlement-batches/'] } },
  {
    name: 'oversight',
    siblingsApart: true,
    units: {
      reconciliation: ['src/reconciliation/'],
      webhooks: ['src/webhooks/'],
      retention: ['src/retention/'],
      history: ['src/history/'],
      books: ['src/books/'],
    },
  },
  { name: 'dashboard', units: { dashboard: ['src/dashboard/'] } },
  // Tenants on several Postgres clusters: the directory of placements and the API's front, which asks each cluster's auth,
  // accounts and settlements whose a request is.
  { name: 'clusters', units: { clusters: ['src/clusters/'] } },
  // Copying a tenant between clusters: reads the catalog and the ledger's verification, below only the entry points.
  { name: 'tenant moves', units: { 'tenant-moves': ['src/tenant-moves/'] } },
  { name: 'activities', units: { activities: ['activities/'] } },
  { name: 'workflows', units: { workflows: ['workflows/'] } },
  { name: 'main', units: { main: ['src/main/'] } },
];

/** Domains own their tables: another domain goes through their services or their `*.access.ts` functions, never their repos. */
const DOMAINS = [
  'audit',
  'auth',
  'fees',
  'customers',
  'accounts',
  'payer-returns',
  'refunds',
  'split-rules',
  'liens',
  'kyc-limits',
  'dynamic-accounts',
  'beneficiaries',
  'approval-policies',
  'payment-confirmation',
  'payment-ingest',
  'settlements',
  'internal-transfers',
  'balance-sweeps',
  'settlement-batches',
  'reconciliation',
  'webhooks',
  'retention',
  'history',
  'books',
  'dashboard',
];

/** A separate app (the provider's model), started only by src/main/. */
const SANDBOX = 'src/sandbox/';

const anchored = (paths) => paths.map((path) => `^${path}`);
const pathsOf = (layers) => layers.flatMap(({ units }) => Object.values(units).flat());

function layerRules() {
  return LAYERS.flatMap((layer, index) =>
    Object.entries(layer.units).map(([name, paths]) => {
      const siblings = layer.siblingsApart
        ? Object.entries(layer.units).flatMap(([other, otherPaths]) => (other === name ? [] : otherPaths))
        : [];
      return {
        name: `layer:${name}`,
        comment: `${name} imports only ${layer.siblingsApart ? 'layers below its own' : 'its own layer and the ones below'}`,
        severity: 'error',
        from: { path: anchored(paths) },
        to: { path: anchored([...pathsOf(LAYERS.slice(index + 1)), ...siblings]) },
      };
    }),
  ).filter((rule) => rule.to.path.length > 0);
}

const LAYERED = [...pathsOf(LAYERS), SANDBOX];

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'Modules import one way: a cycle means a layer or a module has two jobs.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'not-in-a-layer',
      comment: 'Every imported server module belongs to a layer (add its folder to LAYERS).',
      severity: 'error',
      from: {},
      to: { path: '^(src|activities|workflows)/', pathNot: anchored(LAYERED) },
    },
    ...layerRules(),
    {
      name: 'workflows-import-contracts',
      comment:
        'Workflow code is replayed: it imports only workflow contracts, deterministic pure modules and the workflow SDK (activities as types only).',
      severity: 'error',
      from: { path: '^workflows/' },
      to: {
        pathNot: anchored([
          'workflows/',
          'src/contracts/',
          ...WORKFLOW_SAFE,
          'activities/[^/]+\\.activities\\.ts$',
          'node_modules/@temporalio/(workflow|common)/',
        ]),
      },
    },
    {
      name: 'contracts-stay-pure',
      comment: 'Workflow contracts are bundled into workflows: pure modules, provider types and the Temporal SDK only.',
      severity: 'error',
      from: { path: '^src/contracts/' },
      to: { pathNot: anchored(['src/contracts/', ...CONTRACT_SAFE]) },
    },
    {
      name: 'sandbox-stays-apart',
      comment: 'The sandbox models the provider: it uses pure modules, infrastructure and the provider wire format only.',
      severity: 'error',
      from: { path: `^${SANDBOX}` },
      to: { path: '^(src|activities|workflows)/', pathNot: anchored([SANDBOX, ...pathsOf(LAYERS.slice(0, 2)), ...PROVIDER_WIRE]) },
    },
    {
      name: 'only-main-starts-the-sandbox',
      severity: 'error',
      from: { pathNot: ['^src/main/', `^${SANDBOX}`] },
      to: { path: `^${SANDBOX}` },
    },
    {
      name: 'sdk-stands-alone',
      comment:
        'The TypeScript client is published on its own: it imports its own files, Node built-ins and its declared packages, never the service.',
      severity: 'error',
      from: { path: '^sdk/' },
      to: { pathNot: '^sdk/', dependencyTypesNot: ['core'] },
    },
    {
      name: 'ledger-sql-stays-in-the-ledger',
      comment:
        'The ledger runs its own statements: the SQL of postings never leaves src/ledger/ (callers hand it their own rows through the posting engine).',
      severity: 'error',
      from: { path: '^', pathNot: '^src/ledger/' },
      to: { path: '^src/ledger/posting-(ctes|statements)\\.ts$' },
    },
    {
      name: 'no-other-domains-repo',
      comment: "A domain reads another domain's tables through that domain's services or its *.access.ts functions, never its repo.",
      severity: 'error',
      from: { path: `^src/(${DOMAINS.join('|')})/` },
      to: { path: `^src/(${DOMAINS.join('|')})/[^/]+\\.repo\\.ts$`, pathNot: '^src/$1/' },
    },
  ],
  options: {
    parser: 'swc',
    doNotFollow: { path: 'node_modules' },
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
