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
</style>`;

export function loginPage(options: {
  instanceName: string;
  action: string;
  csrf: string;
  returnTo: string;
  username?: string;
  error?: string;
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
    </form>`;
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
