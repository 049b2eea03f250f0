import type { ComponentChildren } from 'preact';

/** The card the signed-out pages (sign in, set a new password) stand on: the brand, a title and a short lead. */
export function SignedOutCard(props: { title: string; lead: string; children: ComponentChildren }) {
  return (
    <main id="main" class="signin">
      <div class="signin-card">
        <div class="brand">
          <span class="brand-mark" aria-hidden="true">
            N
          </span>
          <span>NUBAN ledger</span>
        </div>
        <h1>{props.title}</h1>
        <p class="muted">{props.lead}</p>
        {props.children}
      </div>
    </main>
  );
}
