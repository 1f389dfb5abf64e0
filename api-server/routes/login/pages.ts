import { html, page, type SafeHtml } from '../../views/html.ts';

/** The sign-in pages: plain server-rendered HTML forms, every value escaped, each with its CSRF token. */
const formStyle = html`<style>
  form.auth {
    display: grid;
    gap: 0.75rem;
    max-width: 22rem;
  }
  form.auth input {
    font: inherit;
    padding: 0.4rem;
  }
  form.auth button {
    font: inherit;
    padding: 0.5rem 1rem;
  }
  .alert {
    color: #b42318;
  }
  .providers {
    display: grid;
    gap: 0.5rem;
    max-width: 22rem;
    margin-top: 1.5rem;
  }
  .providers a {
    display: flex;
    align-items: center;
    gap: 0.5rem;
    padding: 0.5rem 1rem;
    border: 1px solid #8886;
    border-radius: 4px;
    color: inherit;
    text-decoration: none;
  }
  .providers img {
    height: 1.5rem;
  }
</style>`;

/** A button of the login page that starts a sign-in through an external provider. */
export interface ProviderButton {
  href: string;
  label: string;
  /** `login_image`: a relative path, shown before the label. */
  image?: string;
  /** `login_image_padding`: CSS padding around the image. */
  imagePadding?: string;
}

/** `login_image` is a path on this instance: one with a scheme or a host (`//host`) is not shown. */
const LOCAL_PATH = /^(?!\/\/)[A-Za-z0-9._~\-/]+$/;
/** CSS padding values only (lengths and `auto`): the setting lands in a style attribute. */
const PADDING = /^(?:\s*(?:0|auto|\d+(?:\.\d+)?(?:px|em|rem|%|pt))){1,4}\s*$/;

function providerButtons(providers: ProviderButton[]): SafeHtml | string {
  if (providers.length === 0) return '';
  return html`<div class="providers">
    ${providers.map(
      (p) =>
        html`<a href="${p.href}"
          >${
            p.image && LOCAL_PATH.test(p.image)
              ? html`<img
                  src="${p.image}"
                  alt=""
                  style="${p.imagePadding && PADDING.test(p.imagePadding) ? `padding: ${p.imagePadding}` : ''}"
                />`
              : ''
          }<span>${p.label}</span></a
        >`,
    )}
  </div>`;
}

export function loginPage(options: {
  instanceName: string;
  action: string;
  csrf: string;
  returnTo: string;
  username?: string;
  error?: string;
  providers?: ProviderButton[];
}): string {
  const body: SafeHtml = html`${formStyle}
    <h1>Sign in</h1>
    ${options.error ? html`<p class="alert" role="alert">${options.error}</p>` : ''}
    <form class="auth" method="post" action="${options.action}">
      <input type="hidden" name="csrf" value="${options.csrf}" />
      <input type="hidden" name="return_to" value="${options.returnTo}" />
      <label
        >Username <input name="username" autocomplete="username" required value="${options.username ?? ''}"
      /></label>
      <label>Password <input name="password" type="password" autocomplete="current-password" required /></label>
      <button type="submit">Sign in</button>
    </form>
    ${providerButtons(options.providers ?? [])}`;
  return page('Sign in', options.instanceName, body);
}

export function logoutPage(options: { instanceName: string; action: string; csrf: string; username: string }): string {
  const body = html`${formStyle}
    <h1>Sign out</h1>
    <p>Signed in as <strong>${options.username}</strong>.</p>
    <form class="auth" method="post" action="${options.action}">
      <input type="hidden" name="csrf" value="${options.csrf}" />
      <button type="submit">Sign out</button>
    </form>`;
  return page('Sign out', options.instanceName, body);
}

/** A sign-in that cannot start: an unknown provider key. */
export function signInErrorPage(instanceName: string, description: string, loginHref: string): string {
  return page(
    'Sign-in refused',
    instanceName,
    html`<h1>This sign-in cannot be started</h1>
      <p>${description}</p>
      <p><a href="${loginHref}">Back to the login page</a></p>`,
  );
}

/** The accounts linked to the signed-in identity (`linked_accounts.enabled`), each a button that switches to it. */
export function linkedAccountsPage(options: {
  instanceName: string;
  action: string;
  csrf: string;
  current: string;
  accounts: string[];
}): string {
  const body = html`${formStyle}
    <h1>Linked accounts</h1>
    <p>Signed in as <strong>${options.current}</strong>. Your identity also signs in as:</p>
    ${
      options.accounts.length === 0
        ? html`<p class="muted">No other account.</p>`
        : options.accounts.map(
            (username) =>
              html`<form class="auth" method="post" action="${options.action}">
                <input type="hidden" name="csrf" value="${options.csrf}" />
                <input type="hidden" name="username" value="${username}" />
                <button type="submit">Switch to ${username}</button>
              </form>`,
          )
    }`;
  return page('Linked accounts', options.instanceName, body);
}
