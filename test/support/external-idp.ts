import { createHash, randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import { exportJWK, generateKeyPair, SignJWT, type JWK, type JWTPayload } from 'jose';
import Provider, { type Configuration } from 'oidc-provider';
import { onTestFinished } from 'vitest';
import { freePort } from '../../scripts/free-port.ts';
import { grantEverything } from './oidc-interaction.ts';

/**
 * node-oidc-provider as an external identity provider (DESIGN.md §5: a test partner, never the engine), on a real
 * loopback port: one confidential client, accounts with an e-mail, RS256 JWT access tokens for one resource whose
 * audience is the client id (RFC 9068, via resource indicators), the account's `email` in them. Its interaction
 * pages sign the account in and grant the scopes without a form. `rotate()` replaces its signing key (a new `kid`,
 * the old one withdrawn) while it keeps its issuer and port.
 */
export interface ExternalIdp {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** The endpoint keys of a generic provider `oidc.provider.<id>.*` pointing at this one. */
  providerConfig(id: string, extra?: Record<string, string>): string;
  /** A real access token for `accountId`, from the authorization code flow with PKCE. */
  accessToken(accountId: string): Promise<string>;
  /** A token signed with the provider's current key (kid included): for claims the provider would not issue. */
  sign(claims: JWTPayload): Promise<string>;
  /** The current signing key's kid. */
  kid(): string;
  rotate(): Promise<void>;
}

const REDIRECT_URI = 'http://127.0.0.1:8765/callback';
const RESOURCE = 'urn:stratus:test:api';

interface SigningKey {
  kid: string;
  privateKey: Awaited<ReturnType<typeof generateKeyPair>>['privateKey'];
  jwk: JWK;
}

async function newKey(): Promise<SigningKey> {
  const { privateKey } = await generateKeyPair('RS256', { modulusLength: 2048, extractable: true });
  const kid = randomBytes(6).toString('hex');
  return { kid, privateKey, jwk: { ...(await exportJWK(privateKey)), alg: 'RS256', use: 'sig', kid } };
}

export async function startExternalIdp(accounts: Record<string, { email: string }>): Promise<ExternalIdp> {
  const port = await freePort();
  const issuer = `http://127.0.0.1:${port}`;
  const clientId = 'stratus-api';
  const clientSecret = randomBytes(16).toString('hex');

  const configuration = (key: SigningKey): Configuration => ({
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: [REDIRECT_URI],
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
    jwks: { keys: [key.jwk] },
    cookies: { keys: ['test cookie key, not a secret'] },
    scopes: ['openid', 'email', 'api'],
    claims: { openid: ['sub'], email: ['email'] },
    findAccount: (_ctx, sub) =>
      accounts[sub] ? { accountId: sub, claims: () => ({ sub, email: accounts[sub]!.email }) } : undefined,
    extraTokenClaims: (_ctx, token) =>
      'accountId' in token && accounts[token.accountId] ? { email: accounts[token.accountId]!.email } : undefined,
    features: {
      devInteractions: { enabled: false },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => RESOURCE,
        useGrantedResource: () => true,
        getResourceServerInfo: () => ({
          scope: 'api',
          audience: clientId,
          accessTokenTTL: 300,
          accessTokenFormat: 'jwt',
          jwt: { sign: { alg: 'RS256' } },
        }),
      },
    },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
  });

  let key = await newKey();
  let provider = new Provider(issuer, configuration(key));
  /** The account each interaction signs in: the one the last authorization request was made for. */
  let signingIn = '';

  const server = createServer((req, res) => {
    if (req.url?.startsWith('/interaction/'))
      grantEverything(provider, req, res, signingIn, clientId).catch((err: unknown) => {
        res.statusCode = 500;
        res.end(String(err));
      });
    else void provider.callback()(req, res);
  });
  await new Promise<void>((done) => server.listen(port, '127.0.0.1', done));
  onTestFinished(() => new Promise<void>((done) => server.close(() => done())));

  async function accessToken(accountId: string): Promise<string> {
    signingIn = accountId;
    const cookies = new Map<string, string>();
    const get = async (target: string) => {
      const response = await fetch(new URL(target, issuer), {
        headers: { cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join('; ') },
        redirect: 'manual',
      });
      for (const line of response.headers.getSetCookie()) {
        const [pair = ''] = line.split(';');
        cookies.set(pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1));
      }
      await response.arrayBuffer();
      return response.headers.get('location');
    };
    const verifier = randomBytes(32).toString('base64url');
    let location = await get(
      `/auth?${new URLSearchParams({
        response_type: 'code',
        client_id: clientId,
        redirect_uri: REDIRECT_URI,
        scope: 'openid email api',
        code_challenge: createHash('sha256').update(verifier).digest('base64url'),
        code_challenge_method: 'S256',
      })}`,
    );
    for (let step = 0; location && !location.startsWith(REDIRECT_URI) && step < 8; step++)
      location = await get(location);
    const code = location && new URL(location).searchParams.get('code');
    if (!code) throw new Error(`the provider's authorization flow ended without a code (${location})`);
    const response = await fetch(`${issuer}/token`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code,
        redirect_uri: REDIRECT_URI,
        code_verifier: verifier,
      }),
    });
    const body = (await response.json()) as { access_token?: string };
    if (!body.access_token) throw new Error(`the provider issued no access token: ${JSON.stringify(body)}`);
    return body.access_token;
  }

  return {
    issuer,
    clientId,
    clientSecret,
    providerConfig: (id, extra = {}) =>
      Object.entries({
        client_id: clientId,
        client_secret: clientSecret,
        issuer_uri: issuer,
        authorization_uri: `${issuer}/auth`,
        token_uri: `${issuer}/token`,
        user_info_uri: `${issuer}/me`,
        jwk_uri: `${issuer}/jwks`,
        ...extra,
      })
        .map(([k, v]) => `oidc.provider.${id}.${k} = ${v}`)
        .join('\n'),
    accessToken,
    sign: (claims) =>
      new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: key.kid, typ: 'at+jwt' }).sign(key.privateKey),
    kid: () => key.kid,
    rotate: async () => {
      key = await newKey();
      provider = new Provider(issuer, configuration(key));
    },
  };
}
