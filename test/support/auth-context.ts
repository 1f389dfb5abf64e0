import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { onTestFinished } from 'vitest';
import { ClientDirectory } from '../../core/auth/clients/directory.ts';
import type { AuthContext } from '../../core/auth/context.ts';
import { tokenMacKey } from '../../core/auth/keys/token-key.ts';
import { resolveSigningKeys } from '../../core/auth/keys/resolve.ts';
import { hashPassword } from '../../core/auth/password.ts';
import { AuthorizationStore } from '../../core/auth/store/authorizations.ts';
import { UserDirectory } from '../../core/auth/users/directory.ts';
import { openEmbeddedCluster, type EmbeddedCluster } from '../../core/cluster/embedded/index.ts';
import type { KubeObject } from '../../core/cluster/objects.ts';
import { API_VERSION } from '../../core/resources/kind.ts';
import { oauth2ClientKind, type OAuth2Client } from '../../core/resources/oauth2-client/schema.ts';
import { secretKind } from '../../core/resources/secret.ts';
import { userKind, type User } from '../../core/resources/user/schema.ts';

export const NAMESPACE = 'default';
export const ISSUER = 'https://stratus.example.org';

/** scrypt at its cheapest accepted cost: tests hash many passwords. */
export const TEST_SCRYPT_COST = { ln: 10, r: 8, p: 1 };

/** A user with a password (hashed into its Secret) in the embedded store. */
export async function addUser(
  cluster: EmbeddedCluster,
  username: string,
  password: string | undefined,
  spec: Partial<User['spec']> = {},
): Promise<void> {
  const name = username.toLowerCase().replace(/[^a-z0-9-]/g, '-');
  if (password !== undefined) {
    await cluster.create<KubeObject>(secretKind, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: `${name}-password`, namespace: NAMESPACE },
      stringData: { hash: await hashPassword(password, TEST_SCRYPT_COST) },
    });
  }
  await cluster.create<User & KubeObject>(userKind, {
    apiVersion: API_VERSION,
    kind: 'User',
    metadata: { name, namespace: NAMESPACE },
    spec: {
      username,
      externalAuthOnly: false,
      disabled: false,
      groups: [],
      authorities: [],
      ...(password !== undefined ? { passwordSecretRef: { name: `${name}-password`, key: 'hash' } } : {}),
      ...spec,
    },
  });
}

/** An OAuth2Client (named like its client id), with its secret in a Secret when it has one. */
export async function addClient(
  cluster: EmbeddedCluster,
  spec: Partial<OAuth2Client['spec']> & { clientId: string },
  secret?: string,
): Promise<void> {
  const name = spec.clientId;
  if (secret !== undefined) {
    await cluster.create<KubeObject>(secretKind, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: `${name}-secret`, namespace: NAMESPACE },
      stringData: { secret },
    });
  }
  await cluster.create<OAuth2Client & KubeObject>(oauth2ClientKind, {
    apiVersion: API_VERSION,
    kind: 'OAuth2Client',
    metadata: { name, namespace: NAMESPACE },
    spec: {
      clientAuthenticationMethods: secret !== undefined ? ['client_secret_basic'] : ['none'],
      authorizationGrantTypes: ['authorization_code', 'refresh_token'],
      redirectUris: ['http://127.0.0.1:8765/callback'],
      scopes: ['openid', 'profile', 'username', 'email'],
      clientSettings: { requireProofKey: true, requireAuthorizationConsent: false },
      ...(secret !== undefined ? { clientSecretRef: { name: `${name}-secret`, key: 'secret' } } : {}),
      ...spec,
    },
  });
}

export interface TestAuth {
  context: AuthContext;
  cluster: EmbeddedCluster;
  /** Moves the context's clock. */
  advance(ms: number): void;
}

/** The authorization server's context over a fresh embedded store, with an ephemeral key and a movable clock. */
export async function authContext(): Promise<TestAuth> {
  const dir = await mkdtemp(join(tmpdir(), 'stratus-auth-'));
  const cluster = await openEmbeddedCluster({ dataDir: dir });
  onTestFinished(async () => {
    await cluster.close();
    await rm(dir, { recursive: true, force: true });
  });
  let offset = 0;
  const keys = await resolveSigningKeys(
    { path: null, alias: null, password: null, keyPassword: null, generateIfMissing: true },
    cluster,
    NAMESPACE,
  );
  const context: AuthContext = {
    cluster,
    namespace: NAMESPACE,
    issuer: ISSUER,
    keys,
    refreshTokenKey: await tokenMacKey(cluster, NAMESPACE),
    clients: new ClientDirectory(cluster, NAMESPACE),
    users: new UserDirectory(cluster, NAMESPACE),
    authorizations: new AuthorizationStore(cluster, NAMESPACE),
    mappingClaim: 'username',
    now: () => new Date(Date.now() + offset),
  };
  return { context, cluster, advance: (ms) => (offset += ms) };
}
