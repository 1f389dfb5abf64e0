import { html, page } from '../../views/html.ts';

/** What each scope lets a client see, on the consent page. */
const SCOPE_TEXT: Record<string, string> = {
  openid: 'know who you are on this instance',
  profile: 'read your profile (your username)',
  username: 'read your username',
  email: 'read your e-mail address',
};

export function consentPage(options: {
  instanceName: string;
  action: string;
  clientName: string;
  username: string;
  scopes: string[];
  csrf: string;
  /** The authorization request, sent back with the decision. */
  parameters: Record<string, string>;
}): string {
  const body = html`<style>
      form.auth {
        display: flex;
        gap: 1rem;
        margin-top: 1rem;
      }
      form.auth button {
        font: inherit;
        padding: 0.5rem 1rem;
      }
    </style>
    <h1>Allow access?</h1>
    <p><strong>${options.clientName}</strong> asks to act for <strong>${options.username}</strong> and to:</p>
    <ul>
      ${options.scopes.map((s) => html`<li><code>${s}</code>: ${SCOPE_TEXT[s] ?? s}</li>`)}
    </ul>
    <form class="auth" method="post" action="${options.action}">
      <input type="hidden" name="csrf" value="${options.csrf}" />
      ${Object.entries(options.parameters).map(([k, v]) => html`<input type="hidden" name="${k}" value="${v}" />`)}
      <button type="submit" name="decision" value="approve">Allow</button>
      <button type="submit" name="decision" value="deny">Deny</button>
    </form>`;
  return page('Allow access', options.instanceName, body);
}

/** A refused authorization request that cannot be redirected (unknown client, unregistered redirect URI). */
export function authorizeErrorPage(instanceName: string, description: string): string {
  return page(
    'Authorization refused',
    instanceName,
    html`<h1>This sign-in request cannot be completed</h1>
      <p>${description}</p>
      <p class="muted">The application that sent you here is misconfigured; nothing was shared with it.</p>`,
  );
}
