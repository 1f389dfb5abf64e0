/**
 * The token endpoint benchmark's peer, in a process of its own: node-oidc-provider configured as the Stratus side
 * is (bench/auth-token.ts). An RS256 signing key (RSA-2048), JWT access tokens for one resource server, S256 PKCE
 * required, refresh tokens issued with every code and rotated on every use, one confidential client with
 * client_secret_basic, one user, and the provider's default in-memory adapter, or with BENCH_PEER_REDIS (a
 * redis:// URL) its records kept in Redis (bench/auth-peer-redis.ts). Its interaction pages sign the
 * user in and grant the requested scopes without a form: the benchmark drives them outside its clock.
 *
 * Settings come from the environment (PORT, BENCH_CLIENT_ID, BENCH_CLIENT_SECRET, BENCH_REDIRECT_URI,
 * BENCH_USERNAME); it prints `ready` once it listens.
 */
import { createServer } from 'node:http';
import { exportJWK, generateKeyPair } from 'jose';
import Provider, { type Configuration } from 'oidc-provider';
import { grantEverything } from '../test/support/oidc-interaction.ts';
import { redisAdapter } from './auth-peer-redis.ts';

const port = Number(process.env.PORT);
const clientId = process.env.BENCH_CLIENT_ID!;
const username = process.env.BENCH_USERNAME!;
const issuer = `http://127.0.0.1:${port}`;
/** The one resource server: its access tokens are RS256 JWTs, as Stratus's are. */
const RESOURCE = 'urn:stratus:bench:api';

const { privateKey } = await generateKeyPair('RS256', { modulusLength: 2048, extractable: true });
const signingKey = { ...(await exportJWK(privateKey)), alg: 'RS256', use: 'sig', kid: 'bench' };

const redis = process.env.BENCH_PEER_REDIS;
const configuration: Configuration = {
  ...(redis ? { adapter: redisAdapter(redis) } : {}),
  clients: [
    {
      client_id: clientId,
      client_secret: process.env.BENCH_CLIENT_SECRET!,
      redirect_uris: [process.env.BENCH_REDIRECT_URI!],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_basic',
    },
  ],
  jwks: { keys: [signingKey] },
  cookies: { keys: ['bench cookie key, not a secret'] },
  pkce: { required: () => true },
  scopes: ['openid', 'profile', 'api'],
  claims: { openid: ['sub'], profile: ['preferred_username'] },
  findAccount: (_ctx, sub) =>
    sub === username ? { accountId: sub, claims: () => ({ sub, preferred_username: sub }) } : undefined,
  // Stratus's client settings: a refresh token with every code, rotated on every refresh; its TTLs.
  issueRefreshToken: (_ctx, client) => client.grantTypeAllowed('refresh_token'),
  rotateRefreshToken: true,
  ttl: { AccessToken: 300, AuthorizationCode: 300, IdToken: 300, RefreshToken: 3600, Grant: 3600, Session: 3600 },
  features: {
    devInteractions: { enabled: false },
    revocation: { enabled: true },
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
};

const provider = new Provider(issuer, configuration);
const callback = provider.callback();

const server = createServer((req, res) => {
  if (req.url?.startsWith('/interaction/'))
    grantEverything(provider, req, res, username, clientId).catch((err: unknown) => {
      res.statusCode = 500;
      res.end(String(err));
    });
  else void callback(req, res);
});
server.listen(port, '127.0.0.1', () => console.log('ready'));
process.once('SIGTERM', () => server.close(() => process.exit(0)));
