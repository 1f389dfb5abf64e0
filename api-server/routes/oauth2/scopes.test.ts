/**
 * Requested scopes at the authorization and token endpoints: a client gets the scopes it asks for among those it
 * registered, `offline_access` is ignored (a refresh token follows the client's grant, asked or not), anything
 * else is `invalid_scope`.
 */
import { describe, expect, it } from 'vitest';
import { requestedScopes } from '../../../core/auth/grants/authorization-request.ts';
import { s256Challenge } from '../../../core/auth/pkce.ts';
import { authorize, Browser, postForm, startAuthApp, type AuthApp } from '../../../test/support/auth-app.ts';

const REDIRECT_URI = 'http://127.0.0.1:8765/callback';
const VERIFIER = 'v'.repeat(43);

async function setup(grants: ('authorization_code' | 'refresh_token')[] = ['authorization_code', 'refresh_token']) {
  const app = await startAuthApp();
  await app.addUser('ada', 'pw');
  await app.addClient({ clientId: 'cli', scopes: ['openid', 'profile', 'username'], authorizationGrantTypes: grants });
  return app;
}

/** The authorization endpoint's answer at the redirect URI, for a signed-in user who needs no consent. */
async function authorizeWith(app: AuthApp, scope: string): Promise<URLSearchParams> {
  const query = new URLSearchParams({
    client_id: 'cli',
    redirect_uri: REDIRECT_URI,
    response_type: 'code',
    scope,
    code_challenge: s256Challenge(VERIFIER),
    code_challenge_method: 'S256',
    state: 'st',
  });
  const callback = await authorize(new Browser(app.url), `/oauth2/authorize?${query}`, {
    username: 'ada',
    password: 'pw',
  });
  return new URL(callback.location!).searchParams;
}

const exchange = async (app: AuthApp, code: string) =>
  (
    await postForm(app.url, '/oauth2/token', {
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT_URI,
      code_verifier: VERIFIER,
    })
  ).body;

describe('requested scopes', () => {
  it('reads a scope parameter: each scope once, offline_access left out, none left as no request', () => {
    expect(requestedScopes('openid  profile openid offline_access')).toEqual(['openid', 'profile']);
    expect(requestedScopes('offline_access')).toBeUndefined();
    expect(requestedScopes(' ')).toBeUndefined();
    expect(requestedScopes(undefined)).toBeUndefined();
  });

  it('ignores offline_access (openEO’s Web Editor asks for it): the client gets its refresh token by its grant', async () => {
    const app = await setup();
    const answer = await authorizeWith(app, 'openid profile username offline_access');
    expect(answer.get('error')).toBeNull();
    const tokens = await exchange(app, answer.get('code')!);
    expect(tokens).toMatchObject({ scope: 'openid profile username', refresh_token: expect.any(String) });
    // A refresh may name it too, and still narrows to what it names besides.
    const refreshed = await postForm(app.url, '/oauth2/token', {
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token!,
      scope: 'openid offline_access',
    });
    expect(refreshed).toMatchObject({ status: 200, body: { scope: 'openid' } });
  });

  it('gives no refresh token for offline_access to a client without the refresh_token grant', async () => {
    const app = await setup(['authorization_code']);
    const answer = await authorizeWith(app, 'openid offline_access');
    const tokens = await exchange(app, answer.get('code')!);
    expect(tokens.scope).toBe('openid');
    expect(tokens).not.toHaveProperty('refresh_token');
  });

  it.each([
    ['a scope Stratus does not know', 'openid api', 'api'],
    ['a scope the client did not register', 'openid email', 'email'],
  ])('refuses %s with invalid_scope at the redirect URI', async (_name, scope, named) => {
    const app = await setup();
    const answer = await authorizeWith(app, scope);
    expect(Object.fromEntries(answer)).toEqual({
      error: 'invalid_scope',
      error_description: `The client may not request: ${named}.`,
      state: 'st',
      iss: app.url,
    });
  });
});
