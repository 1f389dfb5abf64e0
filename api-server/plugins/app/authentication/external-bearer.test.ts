import { generateKeyPair, SignJWT, type JWTPayload } from 'jose';
import { describe, expect, it } from 'vitest';
import { recordSignIn } from '../../../../core/auth/federation/mapping.ts';
import type { KubeObject } from '../../../../core/cluster/objects.ts';
import { userKind, type User } from '../../../../core/resources/user/schema.ts';
import { startAuthApp, type AuthApp } from '../../../../test/support/auth-app.ts';
import { NAMESPACE } from '../../../../test/support/auth-context.ts';
import { startExternalIdp, type ExternalIdp } from '../../../../test/support/external-idp.ts';

/**
 * External bearer tokens end to end: node-oidc-provider is an external identity provider `idp`, Stratus accepts its
 * JWT access tokens (`oidc.jwt.token.authentication.enabled`) and maps them by e-mail to local accounts flagged for
 * external sign-in; every attack of the issue is refused with 401 `invalid_token` and a Bearer challenge.
 */
const ACCOUNTS = {
  ada: { email: 'ada@example.org' },
  grace: { email: 'grace@example.org' },
  off: { email: 'off@example.org' },
  old: { email: 'old@example.org' },
  local: { email: 'local@example.org' },
  nobody: { email: 'nobody@example.org' },
};

async function setup(options: { authorizationServer?: boolean; config?: string } = {}) {
  const idp = await startExternalIdp(ACCOUNTS);
  const app = await startAuthApp({
    authorizationServer: options.authorizationServer,
    config: [
      options.config ?? '',
      'oidc.jwt.token.authentication.enabled = on',
      idp.providerConfig('idp', { display_alias: 'Climate ID', scopes: 'openid,email,api' }),
      // The same issuer with another client, whose mapping claim spec 2 does not support.
      idp.providerConfig('subby', { client_id: 'subby-client', mapping_claim: 'sub' }),
      // Another provider, whose name a token of idp must not pass under.
      idp
        .providerConfig('other', { issuer_uri: 'https://other.example.org' })
        .replaceAll(idp.issuer, 'https://other.example.org'),
    ].join('\n'),
  });
  const external = { externalAuthOnly: true };
  await app.addUser('ada', undefined, { ...external, openId: 'ada@example.org', authorities: ['F_JOB_MANAGE'] });
  await app.addUser('grace', undefined, { ...external, openId: 'grace@example.org' });
  await app.addUser('off', undefined, { ...external, openId: 'off@example.org', disabled: true });
  await app.addUser('old', undefined, {
    ...external,
    openId: 'old@example.org',
    accountExpiry: '2020-01-01T00:00:00Z',
  });
  await app.addUser('local', 'pw', { openId: 'local@example.org', authorities: ['F_JOB_MANAGE'] });
  return { idp, app };
}

function call(app: AuthApp, token: string, path = '/me', init: RequestInit = {}) {
  return fetch(`${app.url}${path}`, { ...init, headers: { ...init.headers, authorization: `Bearer ${token}` } });
}

async function expectRefused(app: AuthApp, token: string, description: RegExp | string) {
  const response = await call(app, token);
  expect(response.status).toBe(401);
  const challenge = response.headers.get('www-authenticate') ?? '';
  expect(challenge).toMatch(/^Bearer realm="[^"]*", error="invalid_token", error_description="/);
  const body = (await response.json()) as { error: string; error_description: string };
  expect(body.error).toBe('invalid_token');
  expect(body.error_description).toMatch(description);
}

const now = () => Math.floor(Date.now() / 1000);

/** Claims as idp issues them for an account, to change one at a time. */
function claimsOf(idp: ExternalIdp, email: string): JWTPayload {
  return { iss: idp.issuer, aud: idp.clientId, sub: email, email, iat: now(), exp: now() + 300, scope: 'api' };
}

const PROCESS = { process_graph: { one: { process_id: 'constant', arguments: { x: 1 }, result: true } } };

describe('bearer tokens of an external identity provider', () => {
  it("accepts the provider's real access token for the mapped user, who may write with the authority", async () => {
    const { idp, app } = await setup();
    const token = await idp.accessToken('ada');
    expect(JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString())).toMatchObject({ alg: 'RS256' });
    const me = await call(app, token);
    expect(me.status).toBe(200);
    expect(await me.json()).toMatchObject({ user_id: 'ada', roles: ['F_JOB_MANAGE'] });
    const put = await call(app, token, '/process_graphs/external1', {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(PROCESS),
    });
    expect(put.status).toBeLessThan(300);
    // openEO's form naming the provider, and a user without the authority.
    expect(await (await call(app, `oidc/idp/${token}`)).json()).toMatchObject({ user_id: 'ada' });
    const grace = await call(app, await idp.accessToken('grace'), '/process_graphs/external2', {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(PROCESS),
    });
    expect(grace.status).toBe(403);
  });

  it('refuses every attack on an external bearer token with 401 invalid_token', async () => {
    const { idp, app } = await setup();
    const ada = claimsOf(idp, 'ada@example.org');
    const real = await idp.accessToken('ada');
    const { privateKey: otherKey } = await generateKeyPair('RS256', { modulusLength: 2048 });
    const unsigned = (claims: JWTPayload) =>
      `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url')}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.`;
    const cases: [string, string, RegExp | string][] = [
      ['unknown issuer', await idp.sign({ ...ada, iss: 'https://unknown.example.org' }), /issuer is not an accepted/],
      [
        'signature by another key (same kid)',
        await new SignJWT(ada).setProtectedHeader({ alg: 'RS256', kid: idp.kid() }).sign(otherKey),
        "the token's signature is not valid",
      ],
      [
        'a key the provider does not publish',
        await new SignJWT(ada).setProtectedHeader({ alg: 'RS256', kid: 'forged' }).sign(otherKey),
        'the token is signed with a key idp does not publish',
      ],
      ['alg none', unsigned(ada), 'the token is not signed with an accepted algorithm'],
      [
        'HMAC',
        await new SignJWT(ada)
          .setProtectedHeader({ alg: 'HS256', kid: idp.kid() })
          .sign(new TextEncoder().encode(idp.clientSecret)),
        'the token is not signed with an accepted algorithm',
      ],
      [
        'wrong audience',
        await idp.sign({ ...ada, aud: 'someone-else' }),
        "the token's audience is not the client of idp",
      ],
      ['expired', await idp.sign({ ...ada, iat: now() - 600, exp: now() - 120 }), 'the token has expired'],
      ['not yet valid', await idp.sign({ ...ada, nbf: now() + 600 }), "the token's nbf claim is not accepted"],
      ['a token of idp named as provider other', `oidc/other/${real}`, 'not issued by the provider it names (other)'],
      ['a token of idp named as the internal provider', `oidc/platform-internal/${real}`, /not issued by the provider/],
      ['an unknown provider id', `oidc/egi/${real}`, 'unknown OpenID Connect provider (egi)'],
      [
        'a mapping claim that matches no user',
        await idp.accessToken('nobody'),
        'no account flagged for external sign-in has this identity',
      ],
      ['a disabled user', await idp.accessToken('off'), 'the account is disabled'],
      ['an expired account', await idp.accessToken('old'), 'the account has expired'],
      [
        'a user not flagged for external sign-in',
        await idp.accessToken('local'),
        'no account flagged for external sign-in has this identity',
      ],
      [
        'a provider whose mapping claim is not supported',
        await idp.sign({ ...ada, aud: 'subby-client' }),
        /^Invalid mapping claim$/,
      ],
      ['not a JWT', 'opaque-token', 'the token is not a JWT'],
    ];
    for (const [name, token, description] of cases) {
      await expect(expectRefused(app, token, description), name).resolves.toBeUndefined();
    }
    // The genuine token still works after all of it.
    expect((await call(app, real)).status).toBe(200);
  });

  it('follows a key rotation at the provider without a restart', async () => {
    const { idp, app } = await setup();
    const before = await idp.accessToken('ada');
    expect((await call(app, before)).status).toBe(200);
    const oldKid = idp.kid();
    await idp.rotate();
    expect(idp.kid()).not.toBe(oldKid);
    const after = await idp.accessToken('ada');
    expect(JSON.parse(Buffer.from(after.split('.')[0]!, 'base64url').toString())).toMatchObject({ kid: idp.kid() });
    expect(await (await call(app, after)).json()).toMatchObject({ user_id: 'ada' });
  });

  it('starts with a broken provider left out and logged, the others working', async () => {
    const { idp, app } = await setup({
      config: [
        'oidc.provider.broken.client_id = c',
        'oidc.provider.broken.client_secret = s',
        'oidc.provider.broken.user_info_response_type = xml',
      ].join('\n'),
    });
    expect(app.logLines()).toContainEqual(
      expect.objectContaining({
        level: 50,
        provider: 'broken',
        msg: expect.stringMatching(/^identity provider broken rejected \(keys oidc\.provider\.broken\.\*\): .*xml/),
      }),
    );
    await expectRefused(app, `oidc/broken/${await idp.accessToken('ada')}`, /unknown OpenID Connect provider/);
    expect((await call(app, await idp.accessToken('ada'))).status).toBe(200);
  });

  it('with linked accounts, maps the identity to the account that signed in most recently', async () => {
    const { idp, app } = await setup({ config: 'linked_accounts.enabled = on' });
    await app.addUser('ada-admin', undefined, { openId: 'ada@example.org', externalAuthOnly: true });
    const token = await idp.accessToken('ada');
    const user = async (name: string) => (await app.cluster.get<User & KubeObject>(userKind, name, NAMESPACE))!;
    await recordSignIn(app.cluster, await user('ada-admin'), new Date());
    expect(await (await call(app, token)).json()).toMatchObject({ user_id: 'ada-admin' });
    await recordSignIn(app.cluster, await user('ada'), new Date(Date.now() + 1000));
    expect(await (await call(app, token)).json()).toMatchObject({ user_id: 'ada' });
  });

  it('lists the external providers in /credentials/oidc beside the internal one', async () => {
    const { idp, app } = await setup();
    const { providers } = (await (await fetch(`${app.url}/credentials/oidc`)).json()) as {
      providers: Record<string, unknown>[];
    };
    expect(providers.map((p) => p.id)).toEqual(['platform-internal', 'idp', 'subby', 'other']);
    expect(providers[1]).toEqual({
      id: 'idp',
      issuer: idp.issuer,
      title: 'Climate ID',
      scopes: ['openid', 'email', 'api'],
    });
  });

  it('works without the authorization server, which then is no provider', async () => {
    const { idp, app } = await setup({ authorizationServer: false });
    const token = await idp.accessToken('ada');
    expect(await (await call(app, token)).json()).toMatchObject({ user_id: 'ada' });
    await expectRefused(app, `oidc/platform-internal/${token}`, 'unknown OpenID Connect provider (platform-internal)');
    // HTTP basic still signs a local user in, before any bearer check.
    const basic = await fetch(`${app.url}/me`, {
      headers: { authorization: `Basic ${Buffer.from('local:pw').toString('base64')}` },
    });
    expect(await basic.json()).toMatchObject({ user_id: 'local' });
    const { providers } = (await (await fetch(`${app.url}/credentials/oidc`)).json()) as {
      providers: { id: string }[];
    };
    expect(providers.map((p) => p.id)).toEqual(['idp', 'subby', 'other']);
    // A write needs a user: anonymous is refused once external bearer tokens are on.
    const anonymous = await fetch(`${app.url}/process_graphs/x`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(PROCESS),
    });
    expect(anonymous.status).toBe(401);
  });
});
