import { randomUUID } from 'node:crypto';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { addClient, authContext, ISSUER } from '../../../test/support/auth-context.ts';
import {
  authenticateClient,
  JWT_BEARER_ASSERTION,
  parseBasic,
  type PresentedClientCredentials,
} from './authenticate.ts';

const TOKEN_ENDPOINT = `${ISSUER}/oauth2/token`;
const SHARED_SECRET = 'a secret of at least thirty-two bytes';

async function setup() {
  const auth = await authContext();
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  await addClient(
    auth.cluster,
    { clientId: 'confidential', clientAuthenticationMethods: ['client_secret_basic', 'client_secret_post'] },
    's3cret',
  );
  await addClient(auth.cluster, { clientId: 'public' });
  await addClient(auth.cluster, {
    clientId: 'device',
    clientAuthenticationMethods: ['private_key_jwt'],
    jwks: { keys: [{ ...(await exportJWK(publicKey)), kid: 'k1' }] },
  });
  await addClient(
    auth.cluster,
    { clientId: 'shared', clientAuthenticationMethods: ['client_secret_jwt'] },
    SHARED_SECRET,
  );
  const assertion = (claims: Record<string, unknown> = {}, key = privateKey) => {
    const now = Math.floor(Date.now() / 1000);
    const base = { iss: 'device', sub: 'device', aud: ISSUER, iat: now, exp: now + 60, jti: randomUUID() };
    return new SignJWT({ ...base, ...claims }).setProtectedHeader({ alg: 'ES256', kid: 'k1' }).sign(key);
  };
  const authenticate = (presented: PresentedClientCredentials) =>
    authenticateClient(presented, {
      clients: auth.context.clients,
      cluster: auth.cluster,
      namespace: 'default',
      audiences: [ISSUER, TOKEN_ENDPOINT],
      now: new Date(),
    }).then(
      ({ client, method }) => `${client.spec.clientId} by ${method}`,
      (err: Error & { code: string }) => `${err.code}: ${err.message}`,
    );
  /** A `client_secret_jwt` assertion of the client `shared`, MAC'd with its secret unless told otherwise. */
  const secretAssertion = (claims: Record<string, unknown> = {}, secret = SHARED_SECRET, alg = 'HS256') => {
    const now = Math.floor(Date.now() / 1000);
    const base = { iss: 'shared', sub: 'shared', aud: TOKEN_ENDPOINT, iat: now, exp: now + 60, jti: randomUUID() };
    return new SignJWT({ ...base, ...claims }).setProtectedHeader({ alg }).sign(new TextEncoder().encode(secret));
  };
  return { authenticate, assertion, secretAssertion };
}

describe('client authentication', () => {
  it('accepts each registered method with the right credentials', async () => {
    const { authenticate, assertion } = await setup();
    expect(await authenticate({ basic: { clientId: 'confidential', secret: 's3cret' } })).toBe(
      'confidential by client_secret_basic',
    );
    expect(await authenticate({ clientId: 'confidential', clientSecret: 's3cret' })).toBe(
      'confidential by client_secret_post',
    );
    expect(await authenticate({ clientId: 'public' })).toBe('public by none');
    expect(await authenticate({ clientAssertionType: JWT_BEARER_ASSERTION, clientAssertion: await assertion() })).toBe(
      'device by private_key_jwt',
    );
  });

  it.each([
    [
      'a wrong secret',
      { basic: { clientId: 'confidential', secret: 'S3cret' } },
      'invalid_client: the client secret is wrong',
    ],
    ['an unknown client', { basic: { clientId: 'nobody', secret: 'x' } }, 'invalid_client: unknown client'],
    [
      'a public client with a secret',
      { clientId: 'public', clientSecret: 'x' },
      'invalid_client: the client is not registered for client_secret_post',
    ],
    [
      'a confidential client without its secret',
      { clientId: 'confidential' },
      'invalid_client: the client is not registered for none',
    ],
    [
      'two methods at once',
      { basic: { clientId: 'confidential', secret: 's3cret' }, clientSecret: 's3cret' },
      'invalid_request: the client must authenticate with one method only',
    ],
    ['nothing', {}, 'invalid_client: client authentication is required'],
    [
      'another client_id beside Basic',
      { basic: { clientId: 'confidential', secret: 's3cret' }, clientId: 'public' },
      'invalid_request: client_id does not match the client that authenticated',
    ],
  ])('refuses %s', async (_name, presented, expected) => {
    const { authenticate } = await setup();
    expect(await authenticate(presented)).toBe(expected);
  });

  it('refuses a replayed client assertion, whatever the jti’s first use answered', async () => {
    const { authenticate, assertion } = await setup();
    const once = await assertion();
    const presented = { clientAssertionType: JWT_BEARER_ASSERTION, clientAssertion: once };
    expect(await authenticate(presented)).toBe('device by private_key_jwt');
    expect(await authenticate(presented)).toBe('invalid_client: the client assertion was already used');
  });

  it.each([
    [
      'for another audience',
      { aud: 'https://elsewhere.example.org' },
      "invalid_client: the client assertion's aud claim is not accepted",
    ],
    [
      'already expired',
      { exp: Math.floor(Date.now() / 1000) - 120 },
      'invalid_client: the client assertion has expired',
    ],
    [
      'valid for an hour',
      { exp: Math.floor(Date.now() / 1000) + 3600 },
      'invalid_client: the client assertion must expire within 600 s',
    ],
    ['without jti', { jti: undefined }, "invalid_client: the client assertion's jti claim is not accepted"],
    ['issued by another client', { iss: 'public' }, "invalid_client: the client assertion's iss claim is not accepted"],
  ])('refuses an assertion %s', async (_name, claims, expected) => {
    const { authenticate, assertion } = await setup();
    expect(
      await authenticate({ clientAssertionType: JWT_BEARER_ASSERTION, clientAssertion: await assertion(claims) }),
    ).toBe(expected);
  });

  it('refuses an assertion signed by a key the client did not register, and one of the wrong type', async () => {
    const { authenticate, assertion } = await setup();
    const stranger = (await generateKeyPair('ES256')).privateKey;
    expect(
      await authenticate({ clientAssertionType: JWT_BEARER_ASSERTION, clientAssertion: await assertion({}, stranger) }),
    ).toBe('invalid_client: the client assertion is not signed by a key of the client');
    expect(await authenticate({ clientAssertionType: 'urn:other', clientAssertion: await assertion() })).toMatch(
      /^invalid_client: client_assertion_type must be/,
    );
  });

  describe('client_secret_jwt (RFC 7523 assertions keyed with the client secret)', () => {
    const bearer = (clientAssertion: string) => ({ clientAssertionType: JWT_BEARER_ASSERTION, clientAssertion });

    it('accepts an HS256 assertion of the client secret, once', async () => {
      const { authenticate, secretAssertion } = await setup();
      const once = bearer(await secretAssertion());
      expect(await authenticate(once)).toBe('shared by client_secret_jwt');
      expect(await authenticate(once)).toBe('invalid_client: the client assertion was already used');
      expect(await authenticate(bearer(await secretAssertion({ aud: ISSUER })))).toBe('shared by client_secret_jwt');
    });

    it.each<[string, [claims: Record<string, unknown>, secret?: string, alg?: string], string]>([
      [
        'keyed with another secret',
        [{}, 'another secret of thirty-two bytes!'],
        'invalid_client: the client assertion is not signed with the client secret',
      ],
      [
        'with HS512',
        [{}, SHARED_SECRET, 'HS512'],
        "invalid_client: the client assertion's alg is not accepted: allowed are HS256",
      ],
      [
        'for another audience',
        [{ aud: 'https://elsewhere.example.org' }],
        "invalid_client: the client assertion's aud claim is not accepted",
      ],
      [
        'valid for an hour',
        [{ exp: Math.floor(Date.now() / 1000) + 3600 }],
        'invalid_client: the client assertion must expire within 600 s',
      ],
      ['without jti', [{ jti: undefined }], "invalid_client: the client assertion's jti claim is not accepted"],
      [
        'issued by another client',
        [{ iss: 'confidential' }],
        "invalid_client: the client assertion's iss claim is not accepted",
      ],
    ])('refuses an assertion %s', async (_name, args, expected) => {
      const { authenticate, secretAssertion } = await setup();
      expect(await authenticate(bearer(await secretAssertion(...args)))).toBe(expected);
    });

    it('keeps the two assertion methods apart: a MAC is no private_key_jwt, a signature no client_secret_jwt', async () => {
      const { authenticate, assertion, secretAssertion } = await setup();
      expect(await authenticate(bearer(await secretAssertion({ iss: 'device', sub: 'device' })))).toBe(
        'invalid_client: the client is not registered for client_secret_jwt',
      );
      expect(await authenticate(bearer(await assertion({ iss: 'shared', sub: 'shared' })))).toBe(
        'invalid_client: the client is not registered for private_key_jwt',
      );
    });
  });

  it('decodes form-encoded Basic credentials (RFC 6749 §2.3.1)', () => {
    const header = `Basic ${Buffer.from('my%20client:p%3Ass+word').toString('base64')}`;
    expect(parseBasic(header)).toEqual({ clientId: 'my client', secret: 'p:ss word' });
    expect(parseBasic('Basic !!!')).toBe('malformed');
    expect(parseBasic('Bearer abc')).toBeUndefined();
  });
});
