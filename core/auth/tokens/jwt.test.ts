import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import { base64url, decodeJwt, decodeProtectedHeader, jwtVerify, SignJWT, UnsecuredJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { addClient, addUser, authContext, ISSUER, type TestAuth } from '../../../test/support/auth-context.ts';
import { authenticateBearer } from '../own-access-tokens.ts';
import { signingKeys } from '../keys/signing-keys.ts';
import { AUTHORIZATION_PREFIX } from '../store/names.ts';
import { API_VERSION } from '../../resources/kind.ts';
import { userKind, type User } from '../../resources/user/schema.ts';
import type { KubeObject } from '../../cluster/objects.ts';
import { mintAccessToken, mintIdToken, mintRefreshToken } from './issue.ts';
import { signJwt } from './jwt.ts';

/** A store with a user, a client and an authorization, and a valid access token's claims to tamper with. */
async function setup(): Promise<TestAuth & { claims: Record<string, unknown>; valid: string }> {
  const auth = await authContext();
  await addUser(auth.cluster, 'ada', 'pw');
  await addClient(auth.cluster, { clientId: 'app' });
  const name = `${AUTHORIZATION_PREFIX}0123`;
  await auth.context.authorizations.create({
    apiVersion: API_VERSION,
    kind: 'OAuth2Authorization',
    metadata: { name, namespace: 'default' },
    spec: { clientId: 'app', principalName: 'ada', grantType: 'authorization_code', scopes: ['openid'] },
  });
  const user = await auth.context.users.find('username', 'ada');
  const now = auth.context.now();
  const minted = await mintAccessToken(auth.context, {
    authorizationName: name,
    clientId: 'app',
    subject: 'ada',
    user,
    scopes: ['openid'],
    now,
    ttlSeconds: 300,
  });
  const claims = decodeJwt(minted.value) as Record<string, unknown>;
  return { ...auth, claims, valid: minted.value };
}

const reason = async (auth: TestAuth, token: string) =>
  authenticateBearer(auth.context, token).then(
    () => 'accepted',
    (err: Error & { code?: string }) => `${err.code}: ${err.message}`,
  );

describe('signJwt', () => {
  it('signs a compact RS256 JWS that jose verifies with the public key alone', async () => {
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const keys = await signingKeys(privateKey, [], 'test');
    const claims = {
      iss: ISSUER,
      sub: 'ada',
      aud: 'app',
      scope: 'openid',
      iat: 1_000,
      exp: 2_000,
      name: 'Ada Lovelace ü',
    };
    const token = await signJwt(keys, 'access', claims);
    expect(token).toMatch(/^[\w-]+\.[\w-]+\.[\w-]{342}$/);
    expect(decodeProtectedHeader(token)).toEqual({ alg: 'RS256', kid: keys.kid, typ: 'at+jwt' });
    const { payload } = await jwtVerify(token, publicKey, {
      algorithms: ['RS256'],
      typ: 'at+jwt',
      currentDate: new Date(1_500_000),
    });
    expect(payload).toEqual(claims);
    // One character of the signed part changed, and the signature no longer holds.
    const [header, body, signature] = token.split('.') as [string, string, string];
    const tampered = `${header}.${body.slice(0, -2)}${body.at(-2) === 'A' ? 'B' : 'A'}${body.at(-1)}.${signature}`;
    await expect(jwtVerify(tampered, publicKey, { currentDate: new Date(1_500_000) })).rejects.toThrow();
  });
});

describe('bearer tokens: what a forged or stale token gets', () => {
  it('accepts the genuine access token', async () => {
    const auth = await setup();
    expect((await authenticateBearer(auth.context, auth.valid)).user.spec.username).toBe('ada');
  });

  it('refuses alg none', async () => {
    const auth = await setup();
    const token = new UnsecuredJWT(auth.claims).setIssuer(ISSUER).encode();
    const headerless = token.replace(/^[^.]+/, base64url.encode(JSON.stringify({ alg: 'none', typ: 'at+jwt' })));
    expect(await reason(auth, headerless)).toBe('invalid_token: the token is not signed with RS256');
  });

  it('refuses HS256 signed with the public key as the HMAC secret', async () => {
    const auth = await setup();
    const publicPem = createPublicKey(auth.context.keys.privateKey).export({ format: 'pem', type: 'spki' });
    const token = await new SignJWT(auth.claims)
      .setProtectedHeader({ alg: 'HS256', typ: 'at+jwt', kid: auth.context.keys.kid })
      .sign(new TextEncoder().encode(String(publicPem)));
    expect(await reason(auth, token)).toBe('invalid_token: the token is not signed with RS256');
  });

  it('refuses RS256 signed by a key that is not published', async () => {
    const auth = await setup();
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const stranger = await signingKeys(privateKey, [], 'test');
    const token = await new SignJWT(auth.claims)
      .setProtectedHeader({ alg: 'RS256', typ: 'at+jwt', kid: auth.context.keys.kid })
      .sign(stranger.privateKey);
    expect(await reason(auth, token)).toBe('invalid_token: the token is not a valid token of this server');
  });

  it.each([
    ['another issuer', { iss: 'https://evil.example.org' }, "invalid_token: the token's iss claim is not accepted"],
    ['the issuer with a trailing slash', { iss: `${ISSUER}/` }, "invalid_token: the token's iss claim is not accepted"],
    [
      'an audience that is no client',
      { aud: 'someone-else' },
      "invalid_token: the token's audience is not a registered client",
    ],
    [
      'one of two audiences no client',
      { aud: ['app', 'other'] },
      "invalid_token: the token's audience is not a registered client",
    ],
    ['no audience', { aud: undefined }, 'invalid_token: the token has no audience'],
  ])('refuses %s', async (_name, change, expected) => {
    const auth = await setup();
    const token = await new SignJWT({ ...auth.claims, ...change })
      .setProtectedHeader({ alg: 'RS256', typ: 'at+jwt', kid: auth.context.keys.kid })
      .sign(auth.context.keys.privateKey);
    expect(await reason(auth, token)).toBe(expected);
  });

  it('refuses an expired token, and one not yet valid, past the 30 s leeway only', async () => {
    const auth = await setup();
    auth.advance(300_000 + 20_000);
    expect(await reason(auth, auth.valid)).toBe('accepted');
    auth.advance(20_000);
    expect(await reason(auth, auth.valid)).toBe('invalid_token: the token has expired');
    const early = await setup();
    early.advance(-60_000);
    expect(await reason(early, early.valid)).toBe("invalid_token: the token's nbf claim is not accepted");
  });

  it('refuses an ID token and a refresh token as bearer tokens', async () => {
    const auth = await setup();
    const user = (await auth.context.users.find('username', 'ada'))!;
    const now = auth.context.now();
    const id = mintIdToken(auth.context, {
      clientId: 'app',
      user,
      scopes: ['openid', 'username'],
      accessToken: auth.valid,
      now,
      ttlSeconds: 300,
    });
    const refresh = mintRefreshToken(auth.context.refreshTokenKey, {
      authorizationName: String(auth.claims.authorization_id),
      now,
      ttlSeconds: 300,
    });
    expect(await reason(auth, await id.value)).toBe("invalid_token: the token's typ claim is not accepted");
    expect(await reason(auth, refresh.value)).toBe('invalid_token: the token is not a valid token of this server');
  });

  it('refuses the token of a revoked authorization, and of a disabled user', async () => {
    const auth = await setup();
    await auth.context.authorizations.revoke(String(auth.claims.authorization_id), 'revoked-by-client', new Date());
    expect(await reason(auth, auth.valid)).toBe('invalid_token: the token was revoked');
    const other = await setup();
    const user = (await other.context.users.find('username', 'ada'))!;
    await other.cluster.update<User & KubeObject>(userKind, {
      ...(user as User & KubeObject),
      spec: { ...user.spec, disabled: true },
    } as never);
    expect(await reason(other, other.valid)).toBe('invalid_token: the account is disabled');
  });
});
