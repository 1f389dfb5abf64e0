/**
 * Spec 2's authorization server against `make run` itself: embedded mode with its configuration and example
 * manifests, the first admin it creates, and the example public client `stratus-cli`, driven by oauth4webapi.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmbedded } from '../../cmd/embedded.ts';
import { authorize, Browser } from '../support/auth-app.ts';
import { startEmbedded } from '../support/embedded.ts';

const insecure = { [oauth.allowInsecureRequests]: true };

describe('make run as an authorization server', () => {
  let dataDir: string;
  let running: RunningEmbedded;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'stratus-make-run-auth-'));
    running = await startEmbedded(dataDir, { authentication: true });
  }, 120_000);
  afterAll(async () => {
    await running?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('signs the first admin in to the example client stratus-cli with code + PKCE, then refreshes and revokes', async () => {
    const password = running.firstAdmin?.password;
    expect(password).toBeDefined();
    const issuer = new URL(running.url);
    const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, insecure));
    const cli: oauth.Client = { client_id: 'stratus-cli' };
    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const url = new URL(as.authorization_endpoint!);
    url.search = new URLSearchParams({
      client_id: 'stratus-cli',
      redirect_uri: 'http://127.0.0.1:8765/callback',
      response_type: 'code',
      scope: 'openid profile',
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
    }).toString();
    // stratus-cli asks for consent (examples/oauth2-client-stratus-cli.yaml): the helper approves it.
    const callback = await authorize(new Browser(running.url), url.href, { username: 'admin', password: password! });
    const params = oauth.validateAuthResponse(as, cli, new URL(callback.location!), state);
    const tokens = await oauth.processAuthorizationCodeResponse(
      as,
      cli,
      await oauth.authorizationCodeGrantRequest(
        as,
        cli,
        oauth.None(),
        params,
        'http://127.0.0.1:8765/callback',
        verifier,
        insecure,
      ),
    );
    expect(oauth.getValidatedIdTokenClaims(tokens)?.sub).toBe('admin');
    const me = await fetch(`${running.url}/me`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect(await me.json()).toMatchObject({ user_id: 'admin', roles: ['ALL'] });
    const refreshed = await oauth.processRefreshTokenResponse(
      as,
      cli,
      await oauth.refreshTokenGrantRequest(as, cli, oauth.None(), tokens.refresh_token!, insecure),
    );
    await oauth.processRevocationResponse(
      await oauth.revocationRequest(as, cli, oauth.None(), refreshed.refresh_token!, insecure),
    );
    const after = await fetch(`${running.url}/me`, { headers: { authorization: `Bearer ${refreshed.access_token}` } });
    expect(after.status).toBe(401);
  });
});
