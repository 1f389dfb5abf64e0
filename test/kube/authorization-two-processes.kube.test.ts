/**
 * Replicas of the authorization server: two `stratus api-server` processes over one Kubernetes API server (as two pods
 * of the chart's Deployment, under its RBAC, behind one public URL) serve one client as one authorization server.
 * A code issued by one is exchanged at the other; the token is accepted, refreshed and revoked across them. The
 * embedded store cannot stand in for the cluster here: it keeps its objects in the memory of the one process that
 * opened its directory, with neither a lock nor a watch of another process's writes.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { SIGNING_KEY_SECRET } from '../../core/auth/keys/ephemeral.ts';
import { s256Challenge } from '../../core/auth/pkce.ts';
import { openKubernetesCluster } from '../../core/cluster/kubernetes/index.ts';
import type { KubeObject } from '../../core/cluster/objects.ts';
import { API_VERSION } from '../../core/resources/kind.ts';
import { oauth2ClientKind } from '../../core/resources/oauth2-client/schema.ts';
import { secretKind } from '../../core/resources/secret.ts';
import { startApiServerProcess, type ApiProcess } from '../support/api-process.ts';
import { authorize, Browser } from '../support/auth-app.ts';
import { installRelease, type KubeRelease } from '../support/kube-release.ts';

const ISSUER = 'https://stratus.example.org';
const REDIRECT_URI = 'http://127.0.0.1:8765/callback';
const VERIFIER = 'p'.repeat(43);
const CLIENT = { id: 'portal', secret: 'portal secret' };
const ADMIN_PASSWORD = 'two processes pw';

/** A call of the client (client_secret_basic) to a token endpoint of one process. */
async function clientCall(base: string, path: string, form: Record<string, string>) {
  const response = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`${CLIENT.id}:${encodeURIComponent(CLIENT.secret)}`).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: new URLSearchParams(form),
  });
  const text = await response.text();
  return { status: response.status, body: (text ? JSON.parse(text) : {}) as Record<string, string> };
}

const me = (base: string, accessToken: string) =>
  fetch(`${base}/me`, { headers: { authorization: `Bearer ${accessToken}` } });

describe('two API server processes over one cluster', () => {
  const adminKubeconfig = inject('kubeconfig');
  const admin = openKubernetesCluster({ kubeconfig: adminKubeconfig });
  let release: KubeRelease;
  let workNamespace: string;
  let dir: string;
  let first: ApiProcess | undefined;
  let second: ApiProcess | undefined;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'stratus-kube-two-'));
    release = await installRelease(admin, adminKubeconfig, 'two');
    workNamespace = release.workNamespace;
    await writeFile(join(dir, 'stratus.properties'), `oauth2.server.enabled = on\nserver.base.url = ${ISSUER}\n`);
    await admin.create<KubeObject>(secretKind, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'portal-secret', namespace: workNamespace },
      stringData: { secret: CLIENT.secret },
    });
    await admin.create(oauth2ClientKind, {
      apiVersion: API_VERSION,
      kind: 'OAuth2Client',
      metadata: { name: CLIENT.id, namespace: workNamespace },
      spec: {
        clientId: CLIENT.id,
        clientAuthenticationMethods: ['client_secret_basic'],
        clientSecretRef: { name: 'portal-secret', key: 'secret' },
        authorizationGrantTypes: ['authorization_code', 'refresh_token'],
        redirectUris: [REDIRECT_URI],
        scopes: ['openid', 'username'],
        clientSettings: { requireProofKey: true, requireAuthorizationConsent: true },
        tokenSettings: { 'settings.token.reuse-refresh-tokens': false },
      },
    });
    // Both start at once, as a Deployment's replicas do: they race to create the signing key and the first admin.
    const env = {
      KUBECONFIG: release.apiServerKubeconfig,
      WATCH_NAMESPACE: workNamespace,
      STRATUS_CONFIG: join(dir, 'stratus.properties'),
      STRATUS_STORE_PATH: dir,
      STRATUS_FIRST_ADMIN_PASSWORD: ADMIN_PASSWORD,
    };
    [first, second] = await Promise.all([startApiServerProcess(env), startApiServerProcess(env)]);
  }, 60_000);

  afterAll(async () => {
    await Promise.all([first?.stop(), second?.stop()]);
    await release?.remove();
    await rm(dir, { recursive: true, force: true });
  });

  it('publish one signing key, the one Secret both read', async () => {
    const [a, b] = await Promise.all(
      [first!, second!].map(async (p) => (await (await fetch(`${p.url}/oauth2/jwks`)).json()) as { keys: unknown[] }),
    );
    expect(a.keys).toHaveLength(1);
    expect(b).toEqual(a);
    expect(await admin.get(secretKind, SIGNING_KEY_SECRET, workNamespace)).toBeDefined();
  });

  it('accept, refresh and revoke across processes what either issued', async () => {
    const one = first!.url;
    const two = second!.url;
    // The user signs in and consents at process 1, which redirects to the client with a code.
    const query = new URLSearchParams({
      client_id: CLIENT.id,
      redirect_uri: REDIRECT_URI,
      response_type: 'code',
      scope: 'openid username',
      state: 'xyz',
      code_challenge: s256Challenge(VERIFIER),
      code_challenge_method: 'S256',
    });
    const callback = await authorize(new Browser(one), `/oauth2/authorize?${query}`, {
      username: 'admin',
      password: ADMIN_PASSWORD,
    });
    const code = new URL(callback.location!).searchParams.get('code');
    expect(code).toBeTruthy();

    // The client exchanges it at process 2.
    const issued = await clientCall(two, '/oauth2/token', {
      grant_type: 'authorization_code',
      code: code!,
      redirect_uri: REDIRECT_URI,
      code_verifier: VERIFIER,
    });
    expect(issued.status).toBe(200);
    expect(issued.body.refresh_token).toBeTruthy();

    // Process 1's API accepts the access token.
    const accepted = await me(one, issued.body.access_token!);
    expect(accepted.status).toBe(200);
    expect(await accepted.json()).toMatchObject({ user_id: 'admin' });

    // Process 2 refreshes (rotating the refresh token); process 1 accepts the new access token too.
    const refreshed = await clientCall(two, '/oauth2/token', {
      grant_type: 'refresh_token',
      refresh_token: issued.body.refresh_token!,
    });
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.refresh_token).not.toBe(issued.body.refresh_token);
    expect((await me(one, refreshed.body.access_token!)).status).toBe(200);
    expect((await me(two, refreshed.body.access_token!)).status).toBe(200);

    // Process 1 revokes the current refresh token, and with it the authorization.
    const revoked = await clientCall(one, '/oauth2/revoke', { token: refreshed.body.refresh_token! });
    expect(revoked.status).toBe(200);

    // Process 2 refuses the access token, which it had verified and remembered, and the refresh token.
    const refused = await me(two, refreshed.body.access_token!);
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toMatch(/error="invalid_token"/);
    const again = await clientCall(two, '/oauth2/token', {
      grant_type: 'refresh_token',
      refresh_token: refreshed.body.refresh_token!,
    });
    expect(again).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
  });
});
