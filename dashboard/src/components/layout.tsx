import type { ComponentChildren } from 'preact';
import { useLocation } from 'preact-iso';
import { useState } from 'preact/hooks';
import { api } from '../api';
import type { Permission } from '../api-types';
import { useCan, useSession } from '../session';

interface NavItem {
  href: string;
  label: string;
  permission?: Permission;
}

const NAV: NavItem[] = [
  { href: '/dashboard', label: 'Overview' },
  { href: '/dashboard/accounts', label: 'Accounts' },
  { href: '/dashboard/settlements', label: 'Settlements' },
  { href: '/dashboard/scheduled-payouts', label: 'Scheduled payouts' },
  { href: '/dashboard/beneficiaries', label: 'Beneficiaries' },
  { href: '/dashboard/transfers', label: 'Transfers' },
  { href: '/dashboard/settlement-batches', label: 'Bulk payouts' },
  { href: '/dashboard/approvals', label: 'Approvals' },
  { href: '/dashboard/velocity-rules', label: 'Velocity rules', permission: 'set_money_rules' },
  { href: '/dashboard/books', label: 'Books' },
  { href: '/dashboard/customers', label: 'Customers' },
  { href: '/dashboard/kyc-reviews', label: 'KYC reviews' },
  { href: '/dashboard/held-money', label: 'Held money' },
  { href: '/dashboard/misdirected', label: 'Misdirected payments' },
  { href: '/dashboard/reconciliation', label: 'Reconciliation' },
  { href: '/dashboard/webhooks', label: 'Webhooks' },
  { href: '/dashboard/webhook-endpoints', label: 'Webhook endpoints' },
  { href: '/dashboard/fees', label: 'Fee calculator' },
  { href: '/dashboard/api-keys', label: 'API keys', permission: 'manage_access' },
  { href: '/dashboard/users', label: 'Users', permission: 'manage_access' },
  { href: '/dashboard/audit-log', label: 'Audit log' },
];

function NavLink(props: { item: NavItem; current: string; onNavigate: () => void }) {
  const allowed = useCan(props.item.permission ?? 'read');
  if (!allowed) return null;
  const { href } = props.item;
  const active = href === '/dashboard' ? props.current === href : props.current === href || props.current.startsWith(`${href}/`);
  return (
    <li>
      <a href={href} aria-current={active ? 'page' : undefined} onClick={props.onNavigate}>
        {props.item.label}
      </a>
    </li>
  );
}

export function Layout(props: { onSignedOut: (message?: string) => void; children: ComponentChildren }) {
  const session = useSession();
  const { path } = useLocation();
  const [menuOpen, setMenuOpen] = useState(false);

  async function signOut(everywhere: boolean): Promise<void> {
    await api('POST', everywhere ? '/auth/sessions/sign-out-all' : '/auth/logout').catch(() => undefined);
    props.onSignedOut(everywhere ? 'You are signed out on every device.' : 'You are signed out.');
  }

  return (
    <div class="shell">
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      <header class="topbar">
        <div class="brand">
          <span class="brand-mark" aria-hidden="true">
            N
          </span>
          <span>
            NUBAN ledger <span class="brand-tenant">· {session.tenant.name}</span>
          </span>
        </div>
        <button
          type="button"
          class="button secondary small menu-toggle"
          aria-expanded={menuOpen}
          aria-controls="main-nav"
          onClick={() => setMenuOpen(!menuOpen)}
        >
          Menu
        </button>
        <div class="whoami">
          <span data-testid="whoami">
            {session.user.email} <span class="role">({session.user.role})</span>
          </span>
          <a class="button link small" href="/dashboard/password">
            Password
          </a>
          <a class="button link small" href="/dashboard/two-factor">
            Two-factor
          </a>
          <button type="button" class="button secondary small" onClick={() => signOut(false)}>
            Sign out
          </button>
          <button type="button" class="button link small" onClick={() => signOut(true)}>
            Sign out everywhere
          </button>
        </div>
      </header>
      <div class="body">
        <nav id="main-nav" class={`sidenav${menuOpen ? ' open' : ''}`} aria-label="Main">
          <ul>
            {NAV.map((item) => (
              <NavLink key={item.href} item={item} current={path.replace(/\/$/, '')} onNavigate={() => setMenuOpen(false)} />
            ))}
          </ul>
        </nav>
        <main id="main" tabIndex={-1}>
          {props.children}
        </main>
      </div>
    </div>
  );
}
