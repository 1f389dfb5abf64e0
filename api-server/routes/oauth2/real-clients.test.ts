/**
 * Real OAuth 2.0 / OIDC clients, unmodified, against the app on a real port: oauth4webapi (a strict client, which
 * checks every response against the RFCs) and openid-client run discovery, the authorization code flow with S256
 * PKCE (the login and consent pages driven with plain HTTP, cookies and CSRF tokens), refresh, introspection,
 * revocation, userinfo, and private_key_jwt and client_secret_jwt client authentication. Plain http on loopback
 * needs the clients' `allowInsecureRequests`, which changes nothing of what they check.
 */
import * as oauth from 'oauth4webapi';
import * as client from 'openid-client';
import { describe, expect, it } from 'vitest';
import { authorize, Browser, startAuthApp, type AuthApp } from '../../../test/support/auth-app.ts';
import { authorizeWithOauth4webapi, insecure, REDIRECT_URI } from '../../../test/support/oauth4webapi-flow.ts';

async function users() {
  const app = await startAuthApp();
  await app.addUser('ada', 'correct horse', { email: 'ada@example.org' });
  return app;
}

/** The code flow with S256 PKCE in openid-client, authenticating as the client does; then introspection. */
async function codeFlowWithOpenidClient(app: AuthApp, clientId: string, auth: client.ClientAuth) {
  const config = await client.discovery(new URL(app.url), clientId, undefined, auth, {
    execute: [client.allowInsecureRequests],
  });
  const verifier = client.randomPKCECodeVerifier();
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: REDIRECT_URI,
    scope: 'openid',
    code_challenge: await client.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
  });
  const callback = await authorize(new Browser(app.url), url.href, { username: 'ada', password: 'correct horse' });
  const tokens = await client.authorizationCodeGrant(config, new URL(callback.location!), {
    pkceCodeVerifier: verifier,
  });
  expect(tokens.claims()?.sub).toBe('ada');
  expect(await client.tokenIntrospection(config, tokens.access_token)).toMatchObject({
    active: true,
    client_id: clientId,
  });
}

describe('oauth4webapi (strict) against the authorization server', () => {
  it('runs discovery, code + PKCE with login and consent, userinfo, refresh, introspection and revocation', async () => {
    const app = await users();
    await app.addClient({
      clientId: 'cli',
      name: 'Command line',
      clientAuthenticationMethods: ['none'],
      clientSettings: { requireProofKey: true, requireAuthorizationConsent: true },
    });
    const issuer = new URL(app.url);
    const as = await oauth.processDiscoveryResponse(
      issuer,
      await oauth.discoveryRequest(issuer, { algorithm: 'oidc', ...insecure }),
    );
    expect(as.issuer).toBe(app.url);
    const cli: oauth.Client = { client_id: 'cli' };

    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const nonce = oauth.generateRandomNonce();
    const url = new URL(as.authorization_endpoint!);
    url.search = new URLSearchParams({
      client_id: 'cli',
      redirect_uri: REDIRECT_URI,
      response_type: 'code',
      scope: 'openid profile username email',
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
      nonce,
    }).toString();
    const browser = new Browser(app.url);
    const callback = await authorize(browser, url.href, { username: 'ada', password: 'correct horse' });
    expect(callback.location).toMatch(/^http:\/\/127\.0\.0\.1:8765\/callback\?code=/);

    const params = oauth.validateAuthResponse(as, cli, new URL(callback.location!), state);
    const tokens = await oauth.processAuthorizationCodeResponse(
      as,
      cli,
      await oauth.authorizationCodeGrantRequest(as, cli, oauth.None(), params, REDIRECT_URI, verifier, insecure),
      { expectedNonce: nonce, requireIdToken: true },
    );
    expect(tokens.token_type).toBe('bearer');
    expect(oauth.getValidatedIdTokenClaims(tokens)).toMatchObject({
      iss: app.url,
      sub: 'ada',
      aud: 'cli',
      nonce,
      username: 'ada',
      email: 'ada@example.org',
    });
    // The access token as a resource server checks it (RFC 9068).
    const claims = await oauth.validateJwtAccessToken(
      as,
      new Request(`${app.url}/me`, { headers: { authorization: `Bearer ${tokens.access_token}` } }),
      'cli',
      insecure,
    );
    expect(claims).toMatchObject({ sub: 'ada', client_id: 'cli', scope: 'openid profile username email' });

    const info = await oauth.processUserInfoResponse(
      as,
      cli,
      'ada',
      await oauth.userInfoRequest(as, cli, tokens.access_token, insecure),
    );
    expect(info).toEqual({ sub: 'ada', username: 'ada', preferred_username: 'ada', email: 'ada@example.org' });

    // A public client's refresh token is rotated.
    const refreshed = await oauth.processRefreshTokenResponse(
      as,
      cli,
      await oauth.refreshTokenGrantRequest(as, cli, oauth.None(), tokens.refresh_token!, insecure),
    );
    expect(refreshed.refresh_token).toBeDefined();
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);

    const introspected = await oauth.processIntrospectionResponse(
      as,
      cli,
      await oauth.introspectionRequest(as, cli, oauth.None(), refreshed.access_token, insecure),
    );
    expect(introspected).toMatchObject({ active: true, client_id: 'cli', username: 'ada', token_type: 'Bearer' });

    await oauth.processRevocationResponse(
      await oauth.revocationRequest(as, cli, oauth.None(), refreshed.refresh_token!, insecure),
    );
    const after = await oauth.processIntrospectionResponse(
      as,
      cli,
      await oauth.introspectionRequest(as, cli, oauth.None(), refreshed.access_token, insecure),
    );
    expect(after.active).toBe(false);
    const refused = oauth.processRefreshTokenResponse(
      as,
      cli,
      await oauth.refreshTokenGrantRequest(as, cli, oauth.None(), refreshed.refresh_token!, insecure),
    );
    await expect(refused).rejects.toMatchObject({ error: 'invalid_grant' });
  });

  it('authenticates a client with private_key_jwt (RFC 7523) at the token and introspection endpoints', async () => {
    const app = await users();
    const { privateKey, publicKey } = await oauth.generateKeyPair('ES256');
    await app.addClient({
      clientId: 'device',
      clientAuthenticationMethods: ['private_key_jwt'],
      jwks: { keys: [{ ...(await crypto.subtle.exportKey('jwk', publicKey)), kid: 'device-key' }] },
      tokenSettings: { 'settings.token.reuse-refresh-tokens': false },
    });
    const device: oauth.Client = { client_id: 'device' };
    const auth = oauth.PrivateKeyJwt({ key: privateKey, kid: 'device-key' });
    const verifier = oauth.generateRandomCodeVerifier();
    const { as, params } = await authorizeWithOauth4webapi(app, 'device', verifier);
    const tokens = await oauth.processAuthorizationCodeResponse(
      as,
      device,
      await oauth.authorizationCodeGrantRequest(as, device, auth, params, REDIRECT_URI, verifier, insecure),
    );
    const rotated = await oauth.processRefreshTokenResponse(
      as,
      device,
      await oauth.refreshTokenGrantRequest(as, device, auth, tokens.refresh_token!, insecure),
    );
    expect(rotated.refresh_token).not.toBe(tokens.refresh_token);
    const introspected = await oauth.processIntrospectionResponse(
      as,
      device,
      await oauth.introspectionRequest(as, device, auth, rotated.refresh_token!, insecure),
    );
    expect(introspected).toMatchObject({ active: true, token_type: 'refresh_token', client_id: 'device' });
  });

  it('runs the code flow without PKCE for a client stored without it, as stored (spec 2)', async () => {
    const app = await users();
    await app.addClient(
      {
        clientId: 'legacy',
        clientAuthenticationMethods: ['client_secret_basic'],
        clientSettings: { requireProofKey: false, requireAuthorizationConsent: false },
      },
      'legacy secret',
    );
    const legacy: oauth.Client = { client_id: 'legacy' };
    const { as, params } = await authorizeWithOauth4webapi(app, 'legacy');
    const auth = oauth.ClientSecretBasic('legacy secret');
    const tokens = await oauth.processAuthorizationCodeResponse(
      as,
      legacy,
      await oauth.authorizationCodeGrantRequest(as, legacy, auth, params, REDIRECT_URI, oauth.nopkce, insecure),
    );
    expect(oauth.getValidatedIdTokenClaims(tokens)).toMatchObject({ sub: 'ada', aud: 'legacy' });
  });

  it('authenticates a client with client_secret_jwt (an HS256 assertion of its secret) at the token endpoint', async () => {
    const app = await users();
    const secret = 'a shared secret of at least thirty-two bytes';
    await app.addClient({ clientId: 'portal', clientAuthenticationMethods: ['client_secret_jwt'] }, secret);
    const portal: oauth.Client = { client_id: 'portal' };
    const auth = oauth.ClientSecretJwt(secret);
    const verifier = oauth.generateRandomCodeVerifier();
    const { as, params } = await authorizeWithOauth4webapi(app, 'portal', verifier);
    expect(as.token_endpoint_auth_methods_supported).toContain('client_secret_jwt');
    const tokens = await oauth.processAuthorizationCodeResponse(
      as,
      portal,
      await oauth.authorizationCodeGrantRequest(as, portal, auth, params, REDIRECT_URI, verifier, insecure),
    );
    expect(oauth.getValidatedIdTokenClaims(tokens)).toMatchObject({ sub: 'ada', aud: 'portal' });
    const refused = oauth.refreshTokenGrantRequest(
      as,
      portal,
      oauth.ClientSecretJwt('not the secret of this client at all'),
      tokens.refresh_token!,
      insecure,
    );
    // invalid_client comes with a Basic challenge (RFC 6749 §5.2), which oauth4webapi reports as such.
    await expect(oauth.processRefreshTokenResponse(as, portal, await refused)).rejects.toMatchObject({
      status: 401,
      code: 'OAUTH_WWW_AUTHENTICATE_CHALLENGE',
    });
    const refreshed = await oauth.processRefreshTokenResponse(
      as,
      portal,
      await oauth.refreshTokenGrantRequest(as, portal, auth, tokens.refresh_token!, insecure),
    );
    expect(refreshed.access_token).not.toBe(tokens.access_token);
  });
});

describe('openid-client against the authorization server', () => {
  it('runs discovery, code + PKCE, userinfo, refresh, introspection and revocation as a confidential client', async () => {
    const app = await users();
    await app.addClient({ clientId: 'portal', clientAuthenticationMethods: ['client_secret_basic'] }, 'portal secret');
    const config = await client.discovery(new URL(app.url), 'portal', 'portal secret', client.ClientSecretBasic(), {
      execute: [client.allowInsecureRequests],
    });
    const verifier = client.randomPKCECodeVerifier();
    const state = client.randomState();
    const nonce = client.randomNonce();
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: REDIRECT_URI,
      scope: 'openid email',
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
      nonce,
    });
    const callback = await authorize(new Browser(app.url), url.href, { username: 'ada', password: 'correct horse' });
    const tokens = await client.authorizationCodeGrant(config, new URL(callback.location!), {
      pkceCodeVerifier: verifier,
      expectedState: state,
      expectedNonce: nonce,
      idTokenExpected: true,
    });
    expect(tokens.claims()).toMatchObject({ sub: 'ada', email: 'ada@example.org', aud: 'portal' });
    expect(await client.fetchUserInfo(config, tokens.access_token, 'ada')).toEqual({
      sub: 'ada',
      email: 'ada@example.org',
    });

    // Reuse is the default of a confidential client: the same refresh token comes back.
    const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token!);
    expect(refreshed.refresh_token).toBe(tokens.refresh_token);
    expect(await client.tokenIntrospection(config, refreshed.access_token)).toMatchObject({ active: true, sub: 'ada' });
    await client.tokenRevocation(config, refreshed.access_token);
    expect(await client.tokenIntrospection(config, refreshed.access_token)).toEqual({ active: false });
    await expect(client.refreshTokenGrant(config, tokens.refresh_token!)).rejects.toMatchObject({
      error: 'invalid_grant',
    });
  });

  it('authenticates with private_key_jwt', async () => {
    const app = await users();
    const { privateKey, publicKey } = await client.randomDPoPKeyPair('RS256');
    await app.addClient({
      clientId: 'device',
      clientAuthenticationMethods: ['private_key_jwt'],
      jwks: { keys: [{ ...(await crypto.subtle.exportKey('jwk', publicKey)), kid: 'rsa-1', alg: 'RS256' }] },
    });
    await codeFlowWithOpenidClient(app, 'device', client.PrivateKeyJwt({ key: privateKey, kid: 'rsa-1' }));
  });

  it('authenticates with client_secret_jwt', async () => {
    const app = await users();
    const secret = 'a shared secret of at least thirty-two bytes';
    await app.addClient({ clientId: 'portal', clientAuthenticationMethods: ['client_secret_jwt'] }, secret);
    await codeFlowWithOpenidClient(app, 'portal', client.ClientSecretJwt(secret));
  });
});
