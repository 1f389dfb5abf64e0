/**
 * The authorization server on a real API server, under the chart's RBAC: `stratus api-server` (as its
 * ServiceAccount) creates the chart's first admin and the ephemeral signing key as Secrets, keeps sessions and
 * authorization records as resources (compare-and-swap on the API server's resourceVersion), and the operator's
 * collector (as its ServiceAccount) removes expired records.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { runKubernetesApiServer } from '../../cmd/api-server.ts';
import type { RunningServer } from '../../api-server/server.ts';
import { authorize, Browser, postForm, signIn } from '../support/auth-app.ts';
import { SIGNING_KEY_SECRET } from '../../core/auth/keys/ephemeral.ts';
import { s256Challenge } from '../../core/auth/pkce.ts';
import { Sessions } from '../../core/auth/store/sessions.ts';
import { openKubernetesCluster } from '../../core/cluster/kubernetes/index.ts';
import type { KubeObject } from '../../core/cluster/objects.ts';
import { API_VERSION } from '../../core/resources/kind.ts';
import { oauth2AuthorizationKind } from '../../core/resources/oauth2-authorization/schema.ts';
import { oauth2ClientKind } from '../../core/resources/oauth2-client/schema.ts';
import { secretKind } from '../../core/resources/secret.ts';
import { sessionKind } from '../../core/resources/session/schema.ts';
import { userKind } from '../../core/resources/user/schema.ts';
import { startAuthStoreCollector } from '../../operator/collectors/auth-store.ts';
import { freePort } from '../../scripts/free-port.ts';
import { installRelease, type KubeRelease } from '../support/kube-release.ts';
import { clusterAs } from '../support/kube-service-account.ts';

const REDIRECT_URI = 'http://127.0.0.1:8765/callback';
const VERIFIER = 'k'.repeat(43);

describe('the authorization server on Kubernetes, under the chart RBAC', () => {
  const adminKubeconfig = inject('kubeconfig');
  const admin = openKubernetesCluster({ kubeconfig: adminKubeconfig });
  let release: KubeRelease;
  let workNamespace: string;
  let dir: string;
  let api: RunningServer;
  let url: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'stratus-kube-auth-'));
    release = await installRelease(admin, adminKubeconfig, 'auth');
    workNamespace = release.workNamespace;
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    await writeFile(join(dir, 'stratus.properties'), `oauth2.server.enabled = on\nserver.base.url = ${url}\n`);
    api = await runKubernetesApiServer(
      {
        namespaces: [workNamespace],
        config: join(dir, 'stratus.properties'),
        storePath: dir,
        host: '127.0.0.1',
        port,
        firstAdmin: { username: 'admin', password: 'kube admin pw' },
      },
      { kubeconfig: release.apiServerKubeconfig },
    );
    // A client applied as kubectl would.
    await admin.create(oauth2ClientKind, {
      apiVersion: API_VERSION,
      kind: 'OAuth2Client',
      metadata: { name: 'cli', namespace: workNamespace },
      spec: {
        clientId: 'cli',
        clientAuthenticationMethods: ['none'],
        authorizationGrantTypes: ['authorization_code', 'refresh_token'],
        redirectUris: [REDIRECT_URI],
        scopes: ['openid', 'username'],
        clientSettings: { requireProofKey: true, requireAuthorizationConsent: true },
        tokenSettings: { 'settings.token.reuse-refresh-tokens': false },
      },
    });
  }, 120_000);

  afterAll(async () => {
    await api?.stop();
    await release?.remove();
    await rm(dir, { recursive: true, force: true });
  });

  it('creates the first admin and the signing key as Secrets, and signs the admin in', async () => {
    const user = await admin.get<KubeObject<{ authorities: string[]; passwordSecretRef: { name: string } }>>(
      userKind,
      'admin',
      workNamespace,
    );
    expect(user?.spec).toMatchObject({
      authorities: ['ALL'],
      passwordSecretRef: { name: 'stratus-user-admin-password' },
    });
    const hash = await admin.get<KubeObject & { data: Record<string, string> }>(
      secretKind,
      'stratus-user-admin-password',
      workNamespace,
    );
    expect(Buffer.from(hash!.data['password-hash']!, 'base64').toString()).toMatch(/^\$scrypt\$ln=15,r=8,p=1\$/);
    expect(await admin.get(secretKind, SIGNING_KEY_SECRET, workNamespace)).toBeDefined();
    const me = await fetch(`${url}/me`, {
      headers: { authorization: `Basic ${Buffer.from('admin:kube admin pw').toString('base64')}` },
    });
    expect(await me.json()).toMatchObject({ user_id: 'admin', roles: ['ALL'] });
  });

  it('runs the code flow with login, consent, rotation and replay detection on the API server', async () => {
    const browser = new Browser(url);
    await signIn(browser, 'admin', 'kube admin pw');
    expect((await admin.list(sessionKind, { namespace: workNamespace })).items.length).toBeGreaterThan(0);
    const query = new URLSearchParams({
      client_id: 'cli',
      redirect_uri: REDIRECT_URI,
      response_type: 'code',
      scope: 'openid username',
      code_challenge: s256Challenge(VERIFIER),
      code_challenge_method: 'S256',
    });
    const callback = await authorize(browser, `/oauth2/authorize?${query}`, {
      username: 'admin',
      password: 'kube admin pw',
    });
    const code = new URL(callback.location!).searchParams.get('code')!;
    const call = (form: Record<string, string>) => postForm(url, '/oauth2/token', form);
    const issued = await call({
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT_URI,
      code_verifier: VERIFIER,
    });
    expect(issued.status).toBe(200);
    const uses = await Promise.all(
      Array.from({ length: 10 }, () =>
        call({ grant_type: 'refresh_token', refresh_token: issued.body.refresh_token! }),
      ),
    );
    expect(uses.filter((u) => u.status === 200)).toHaveLength(1);
    const [record] = (
      await admin.list<KubeObject<{ revocation?: { reason: string } }>>(oauth2AuthorizationKind, {
        namespace: workNamespace,
      })
    ).items;
    expect(record!.spec!.revocation?.reason).toBe('refresh-token-replayed');
  });

  it("lets the operator's collector remove expired records", async () => {
    const operator = await clusterAs(admin, adminKubeconfig, {
      name: `${release.release}-stratus-operator`,
      namespace: release.releaseNamespace,
    });
    await new Sessions(admin, workNamespace).start('admin', new Date(Date.now() - 3 * 3600_000), 3600);
    const before = (await admin.list(sessionKind, { namespace: workNamespace })).items.length;
    const collector = startAuthStoreCollector({
      cluster: operator,
      logger: pino({ level: 'silent' }),
      leadership: { isLeader: () => true },
      registry: new Registry(),
      namespaces: [workNamespace],
      firstSweepDelayMs: 3_600_000,
    });
    try {
      const removed = await collector.sweep();
      expect(removed.map((r) => r.ref.kind)).toContain('Session');
      expect((await admin.list(sessionKind, { namespace: workNamespace })).items.length).toBe(before - 1);
    } finally {
      await collector.stop();
    }
  });
});
