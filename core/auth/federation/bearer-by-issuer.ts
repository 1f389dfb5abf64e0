import { decodeJwt, errors, jwtVerify, type JWTPayload } from 'jose';
import type { Logger } from 'pino';
import { authenticateBearer, type BearerCaller } from '../own-access-tokens.ts';
import { Lru } from '../../cache/lru.ts';
import type { AuthContext } from '../context.ts';
import { OAuthError } from '../errors.ts';
import { CLOCK_TOLERANCE_SECONDS, timely } from '../tokens/jwt.ts';
import type { UserDirectory } from '../users/directory.ts';
import { mapIdentity } from './mapping.ts';
import { ProviderKeysUnavailable, type ProviderKeySets } from './provider-keys.ts';
import { USER_INFO_JWS_ALGORITHMS, type ExternalProvider, type Provider, type ProviderRegistry } from './providers.ts';

/**
 * The resource server's check of any `Authorization: Bearer <JWT>` (spec 2, "JWT bearer validation"): the token's
 * `iss` names the provider (the internal one when `oauth2.server.enabled`, external ones when
 * `oidc.jwt.token.authentication.enabled`); the signature is verified against that provider's keys with an
 * asymmetric algorithm only (no `none`, no HMAC); the audience must be the provider's (internal: every `aud` a
 * registered client; external: the provider's client id among the `aud`s); `exp`/`nbf` hold with 30 s of leeway;
 * the provider's mapping claim names the local user. An openEO client names the provider
 * (`Bearer oidc/<provider>/<token>`): the token must then be that provider's.
 */
export interface BearerSources {
  providers: ProviderRegistry;
  /** The authorization server, when on: it checks its own tokens (core/auth/own-access-tokens.ts). */
  internal: AuthContext | undefined;
  /** External providers' tokens, accepted when `oidc.jwt.token.authentication.enabled`. */
  external: { keys: ProviderKeySets; users: Pick<UserDirectory, 'withOpenId'>; linkedAccounts: boolean } | undefined;
  log: Pick<Logger, 'warn'>;
  now(): Date;
}

/** Whether tokens of this provider are accepted as bearer tokens under the configured flags. */
export function acceptsTokensOf(sources: Pick<BearerSources, 'internal' | 'external'>, provider: Provider): boolean {
  return provider.kind === 'internal' ? sources.internal !== undefined : sources.external !== undefined;
}

/**
 * Unverified claims of recent tokens, by token: they only pick the provider that verifies the token, and decoding a
 * token's base64url JSON on every request of a client that presents it for minutes was most of the bearer check's
 * cost once its signature check is remembered (core/auth/tokens/jwt.ts).
 */
const DECODED_MAX = 5_000;
const decoded = new Lru<JWTPayload>(DECODED_MAX);

function decodeOnce(token: string): JWTPayload {
  let claims = decoded.get(token);
  if (claims) return claims;
  try {
    claims = decodeJwt(token);
  } catch {
    throw new OAuthError('invalid_token', 'the token is not a JWT');
  }
  decoded.set(token, claims);
  return claims;
}

export async function authenticateAnyBearer(
  sources: BearerSources,
  token: string,
  providerKey?: string,
): Promise<BearerCaller> {
  const unverified = decodeOnce(token);
  const named = providerKey === undefined ? undefined : sources.providers.byKey(providerKey);
  if (providerKey !== undefined && (!named || !acceptsTokensOf(sources, named)))
    throw new OAuthError('invalid_token', `the token names an unknown OpenID Connect provider (${providerKey})`);
  const issuers = typeof unverified.iss === 'string' ? sources.providers.byIssuer(unverified.iss) : [];
  const candidates = issuers.filter((p) => acceptsTokensOf(sources, p));
  if (named && !candidates.includes(named))
    throw new OAuthError('invalid_token', `the token was not issued by the provider it names (${providerKey})`);
  const first = named ?? candidates[0];
  if (!first) throw new OAuthError('invalid_token', "the token's issuer is not an accepted identity provider");
  if (first.kind === 'internal') return authenticateBearer(sources.internal!, token);
  const external = named ? [first as ExternalProvider] : candidates.filter((p) => p.kind === 'external');
  return authenticateExternal(sources, external, token, unverified);
}

function audiencesOf(claims: JWTPayload): string[] {
  return Array.isArray(claims.aud) ? claims.aud : typeof claims.aud === 'string' ? [claims.aud] : [];
}

/** `scope` (RFC 9068, space-separated) or `scp` (a list, or a string, as some providers write it). */
function scopesOf(claims: JWTPayload): string[] {
  const value = claims.scope ?? claims.scp;
  const list = Array.isArray(value) ? value : typeof value === 'string' ? value.split(' ') : [];
  return list.filter((s): s is string => typeof s === 'string' && s !== '');
}

function refusal(err: unknown, provider: ExternalProvider): OAuthError {
  if (err instanceof errors.JWTExpired) return new OAuthError('invalid_token', 'the token has expired');
  if (err instanceof errors.JWTClaimValidationFailed)
    return new OAuthError('invalid_token', `the token's ${err.claim} claim is not accepted`);
  if (err instanceof errors.JOSEAlgNotAllowed || err instanceof errors.JOSENotSupported)
    return new OAuthError('invalid_token', 'the token is not signed with an accepted algorithm');
  if (err instanceof errors.JWKSNoMatchingKey)
    return new OAuthError('invalid_token', `the token is signed with a key ${provider.key} does not publish`);
  if (err instanceof errors.JWSSignatureVerificationFailed)
    return new OAuthError('invalid_token', "the token's signature is not valid");
  if (err instanceof ProviderKeysUnavailable)
    return new OAuthError('invalid_token', `the keys of ${provider.key} cannot be fetched`);
  if (err instanceof errors.JOSEError)
    return new OAuthError('invalid_token', `the token is not a valid token of ${provider.key}`);
  throw err;
}

/**
 * External tokens whose signature, issuer and audience were checked, by provider key set and token: a client sends
 * the same token for minutes, and its RSA or EC verification need not be repeated; its time claims and its user
 * are checked on every use. The price: a key the provider withdraws stops the tokens it signed only once they
 * leave this cache (5,000 tokens) or expire, as for this server's own tokens (core/auth/tokens/jwt.ts).
 */
const VERIFIED_MAX = 5_000;
const verified = new WeakMap<ProviderKeySets, Lru<JWTPayload>>();

async function verifiedClaims(
  keys: ProviderKeySets,
  provider: ExternalProvider,
  token: string,
  now: Date,
): Promise<JWTPayload> {
  let cache = verified.get(keys);
  if (!cache) verified.set(keys, (cache = new Lru(VERIFIED_MAX)));
  const id = `${provider.key}\n${token}`;
  const known = cache.get(id);
  if (known && timely(known, now)) return known;
  const { payload } = await jwtVerify(token, keys.of(provider).resolve, {
    algorithms: [...USER_INFO_JWS_ALGORITHMS],
    issuer: provider.issuers,
    clockTolerance: CLOCK_TOLERANCE_SECONDS,
    currentDate: now,
    requiredClaims: ['exp'],
  });
  if (!audiencesOf(payload).includes(provider.clientId))
    throw new OAuthError('invalid_token', `the token's audience is not the client of ${provider.key}`);
  cache.set(id, payload);
  return payload;
}

async function authenticateExternal(
  sources: BearerSources,
  candidates: ExternalProvider[],
  token: string,
  unverified: JWTPayload,
): Promise<BearerCaller> {
  const external = sources.external!;
  // Providers sharing an issuer differ by client: the one the token is for checks it.
  const provider = candidates.find((p) => audiencesOf(unverified).includes(p.clientId)) ?? candidates[0]!;
  const now = sources.now();
  let claims: JWTPayload;
  try {
    claims = await verifiedClaims(external.keys, provider, token, now);
  } catch (err) {
    if (err instanceof OAuthError) throw err;
    if (err instanceof ProviderKeysUnavailable)
      sources.log.warn(
        { provider: provider.key, err },
        `the keys of identity provider ${provider.key} cannot be fetched`,
      );
    throw refusal(err, provider);
  }
  const mapping = await mapIdentity(external.users, provider.mappingClaim, claims, {
    linkedAccounts: external.linkedAccounts,
    now,
  });
  if (mapping.refusal !== undefined) throw new OAuthError('invalid_token', mapping.refusal);
  return { user: mapping.user, claims, scopes: scopesOf(claims), clientId: provider.clientId };
}
