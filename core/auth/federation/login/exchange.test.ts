import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import { createServer } from 'node:http';
import { createLocalJWKSet, decodeJwt, decodeProtectedHeader, exportJWK, SignJWT, type JWTPayload } from 'jose';
import { describe, expect, it, onTestFinished } from 'vitest';
import { signingKeys } from '../../keys/signing-keys.ts';
import type { ExternalProvider } from '../providers.ts';
import { freePort } from '../../../../scripts/free-port.ts';
import { exchangeCode, fetchUserInfo, tokenRequest, verifyIdToken, type ExchangeSettings } from './exchange.ts';

const ISSUER = 'https://idp.example.org';
const NOW = new Date('2026-01-01T00:00:00Z');
const at = NOW.getTime() / 1000;

const providerKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
const otherKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
const providerJwks = createLocalJWKSet({
  keys: [{ ...(await exportJWK(createPublicKey(providerKey))), kid: 'p1', alg: 'RS256' }],
});

const settings = (overrides: Partial<ExternalProvider> = {}): ExchangeSettings => ({
  key: 'peer',
  clientId: 'stratus client',
  clientSecret: 's3cret/+',
  clientAuthenticationMethod: 'client_secret_basic',
  clientAssertionKeystore: undefined,
  tokenUri: `${ISSUER}/token`,
  userInfoUri: `${ISSUER}/userinfo`,
  issuers: [ISSUER],
  userInfoResponseType: 'json',
  userInfoJwsAlgorithm: 'RS256',
  ...overrides,
});

function idToken(claims: JWTPayload, options: { alg?: string; key?: typeof providerKey } = {}) {
  return new SignJWT({
    iss: ISSUER,
    sub: 'ada-sub',
    aud: 'stratus client',
    iat: at,
    exp: at + 300,
    nonce: 'n1',
    ...claims,
  })
    .setProtectedHeader({ alg: options.alg ?? 'RS256', kid: 'p1' })
    .sign(options.key ?? providerKey);
}

describe('the token request', () => {
  it('sends client_secret_basic as RFC 6749 §2.3.1 says: id and secret form-encoded, then base64', async () => {
    const { headers, body } = await tokenRequest(
      settings(),
      undefined,
      { code: 'c', redirectUri: 'https://s/cb' },
      NOW,
    );
    expect(Buffer.from(headers.authorization!.slice(6), 'base64').toString()).toBe('stratus+client:s3cret%2F%2B');
    expect(Object.fromEntries(body)).toEqual({
      grant_type: 'authorization_code',
      code: 'c',
      redirect_uri: 'https://s/cb',
    });
  });

  it('sends client_secret_post in the form, and the PKCE verifier when there is one', async () => {
    const { headers, body } = await tokenRequest(
      settings({ clientAuthenticationMethod: 'client_secret_post' }),
      undefined,
      { code: 'c', redirectUri: 'https://s/cb', codeVerifier: 'v'.repeat(43) },
      NOW,
    );
    expect(headers.authorization).toBeUndefined();
    expect(Object.fromEntries(body)).toMatchObject({
      client_id: 'stratus client',
      client_secret: 's3cret/+',
      code_verifier: 'v'.repeat(43),
    });
  });

  it('signs a private_key_jwt assertion with the keystore key, naming jwk_set_url in jku', async () => {
    const keys = await signingKeys(generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey, [], 'test');
    const jwkSetUrl = 'https://stratus.example.org/api/publicKeys/stratus%20client/jwks.json';
    const { body } = await tokenRequest(
      settings({
        clientAuthenticationMethod: 'private_key_jwt',
        clientSecret: undefined,
        clientAssertionKeystore: { path: 'p', password: '', alias: 'a', keyPassword: '', jwkSetUrl },
      }),
      keys,
      { code: 'c', redirectUri: 'https://s/cb' },
      NOW,
    );
    const assertion = body.get('client_assertion')!;
    expect(body.get('client_assertion_type')).toBe('urn:ietf:params:oauth:client-assertion-type:jwt-bearer');
    expect(decodeProtectedHeader(assertion)).toMatchObject({ alg: 'RS256', kid: keys.kid, jku: jwkSetUrl });
    const claims = decodeJwt(assertion);
    expect(claims).toMatchObject({ iss: 'stratus client', sub: 'stratus client', aud: `${ISSUER}/token` });
    expect(claims.exp! - claims.iat!).toBe(60);
    expect(claims.jti).toMatch(/^[A-Za-z0-9_-]{22}$/);
  });
});

describe('the code exchange', () => {
  it('blames the provider when its token endpoint cannot be reached or refuses the code', async () => {
    const grant = { code: 'c', redirectUri: 'https://s/cb' };
    const closed = `http://127.0.0.1:${await freePort()}/token`;
    await expect(exchangeCode(settings({ tokenUri: closed }), undefined, grant, NOW)).rejects.toMatchObject({
      reason: 'provider',
    });
    const server = createServer((_req, res) =>
      res.writeHead(400, { 'content-type': 'application/json' }).end('{"error":"invalid_grant"}'),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    onTestFinished(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const refusing = `http://127.0.0.1:${(server.address() as { port: number }).port}/token`;
    await expect(exchangeCode(settings({ tokenUri: refusing }), undefined, grant, NOW)).rejects.toThrow(
      /refused the code: invalid_grant/,
    );
  });
});

describe('the ID token', () => {
  it('passes with the provider’s signature, issuer, audience, expiry and this sign-in’s nonce', async () => {
    const claims = await verifyIdToken(settings(), providerJwks, await idToken({}), 'n1', NOW);
    expect(claims.sub).toBe('ada-sub');
  });

  it.each([
    ['another nonce', () => idToken({ nonce: 'n2' }), /nonce/],
    ['no nonce', () => idToken({ nonce: undefined }), /nonce/],
    ['another audience', () => idToken({ aud: 'someone else' }), /aud/],
    ['another issuer', () => idToken({ iss: 'https://evil.example.org' }), /iss/],
    ['an expired token', () => idToken({ exp: at - 3600, iat: at - 7200 }), /expired/],
    ['a signature by another key', () => idToken({}, { key: otherKey }), /refused/],
    ['several audiences without azp', () => idToken({ aud: ['stratus client', 'other'] }), /azp/],
    [
      'alg none',
      async () =>
        `${Buffer.from('{"alg":"none"}').toString('base64url')}.${Buffer.from(JSON.stringify({ iss: ISSUER, sub: 'x', aud: 'stratus client', exp: at + 60, iat: at, nonce: 'n1' })).toString('base64url')}.`,
      /refused/,
    ],
  ])('is refused with %s', async (_name, make, message) => {
    await expect(verifyIdToken(settings(), providerJwks, await make(), 'n1', NOW)).rejects.toThrow(message);
  });
});

describe('userinfo', () => {
  async function serve(type: string, body: string): Promise<string> {
    const server = createServer((_req, res) => res.writeHead(200, { 'content-type': type }).end(body));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    onTestFinished(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const { port } = server.address() as { port: number };
    return `http://127.0.0.1:${port}/userinfo`;
  }
  const signed = (claims: JWTPayload, alg = 'RS256') =>
    new SignJWT({ iss: ISSUER, aud: 'stratus client', sub: 'ada-sub', ...claims })
      .setProtectedHeader({ alg, kid: 'p1' })
      .sign(providerKey);

  it('reads JSON, and refuses another sub than the ID token’s', async () => {
    const url = await serve('application/json', JSON.stringify({ sub: 'ada-sub', email: 'ada@example.org' }));
    expect(await fetchUserInfo(settings({ userInfoUri: url }), providerJwks, 'at', 'ada-sub', NOW)).toMatchObject({
      email: 'ada@example.org',
    });
    await expect(fetchUserInfo(settings({ userInfoUri: url }), providerJwks, 'at', 'bob-sub', NOW)).rejects.toThrow(
      /sub/,
    );
  });

  it('verifies a JWT answer with user_info_jws_algorithm against the provider’s keys', async () => {
    const url = await serve('application/jwt', await signed({ email: 'ada@example.org' }));
    const jwt = settings({ userInfoUri: url, userInfoResponseType: 'jwt' });
    expect(await fetchUserInfo(jwt, providerJwks, 'at', 'ada-sub', NOW)).toMatchObject({ email: 'ada@example.org' });
    // Signed RS256 while PS256 is configured.
    await expect(
      fetchUserInfo({ ...jwt, userInfoJwsAlgorithm: 'PS256' }, providerJwks, 'at', 'ada-sub', NOW),
    ).rejects.toThrow(/refused/);
  });

  it('refuses JSON when a JWT is configured, and a JWT for another client', async () => {
    const json = await serve('application/json', JSON.stringify({ sub: 'ada-sub' }));
    await expect(
      fetchUserInfo(settings({ userInfoUri: json, userInfoResponseType: 'jwt' }), providerJwks, 'at', 'ada-sub', NOW),
    ).rejects.toThrow(/not application\/jwt/);
    const other = await serve('application/jwt', await signed({ aud: 'another client' }));
    await expect(
      fetchUserInfo(settings({ userInfoUri: other, userInfoResponseType: 'jwt' }), providerJwks, 'at', 'ada-sub', NOW),
    ).rejects.toThrow(/aud/);
  });
});
