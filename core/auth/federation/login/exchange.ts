import { errors, jwtVerify, SignJWT, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import { randomSecret } from '../../digest.ts';
import type { SigningKeys } from '../../keys/signing-keys.ts';
import { CLOCK_TOLERANCE_SECONDS } from '../../tokens/jwt.ts';
import type { ExternalProvider } from '../providers.ts';

/**
 * The relying party's calls to a provider after it sent the browser back with a code (OpenID Connect Core §3.1.3):
 * the token request with the configured client authentication, the ID token's checks, and userinfo as JSON or as
 * a signed JWT. Every refusal is a FederatedLoginError saying which step failed; nothing here trusts an answer it
 * has not checked.
 */

/** What the exchange needs of a provider's configuration (providers.ts). */
export type ExchangeSettings = Pick<
  ExternalProvider,
  | 'key'
  | 'clientId'
  | 'clientSecret'
  | 'clientAuthenticationMethod'
  | 'clientAssertionKeystore'
  | 'tokenUri'
  | 'userInfoUri'
  | 'issuers'
  | 'userInfoResponseType'
  | 'userInfoJwsAlgorithm'
>;

/** Asymmetric algorithms only: `none` and HMAC (keyed with a public key or the client secret) are never accepted. */
const ID_TOKEN_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512'];
const REQUEST_TIMEOUT_MS = 10_000;
const ASSERTION_TTL_SECONDS = 60;

export class FederatedLoginError extends Error {
  /** `provider`: the provider refused or could not be reached; `token`: its answer did not pass the checks. */
  readonly reason: 'provider' | 'token';
  constructor(reason: 'provider' | 'token', message: string) {
    super(message);
    this.name = 'FederatedLoginError';
    this.reason = reason;
  }
}

/** RFC 6749 §2.3.1: the id and the secret are form-encoded before they are joined and base64-encoded. */
function basicCredentials(id: string, secret: string): string {
  const encode = (v: string) => encodeURIComponent(v).replace(/%20/g, '+');
  return `Basic ${Buffer.from(`${encode(id)}:${encode(secret)}`).toString('base64')}`;
}

/** RFC 7523 §2.2 client assertion: iss = sub = client id, aud = the token endpoint, single-use jti, short-lived. */
export async function clientAssertion(
  settings: Pick<ExchangeSettings, 'clientId' | 'tokenUri' | 'clientAssertionKeystore'>,
  keys: SigningKeys,
  now: Date,
): Promise<string> {
  const at = Math.floor(now.getTime() / 1000);
  return new SignJWT({ jti: randomSecret(16) })
    .setProtectedHeader({
      alg: 'RS256',
      kid: keys.kid,
      typ: 'JWT',
      ...(settings.clientAssertionKeystore ? { jku: settings.clientAssertionKeystore.jwkSetUrl } : {}),
    })
    .setIssuer(settings.clientId)
    .setSubject(settings.clientId)
    .setAudience(settings.tokenUri)
    .setIssuedAt(at)
    .setExpirationTime(at + ASSERTION_TTL_SECONDS)
    .sign(keys.privateKey);
}

/** The token request's headers and form, authenticated as the provider is configured. */
export async function tokenRequest(
  settings: ExchangeSettings,
  clientKeys: SigningKeys | undefined,
  grant: { code: string; redirectUri: string; codeVerifier?: string },
  now: Date,
): Promise<{ headers: Record<string, string>; body: URLSearchParams }> {
  const body = new URLSearchParams({
    grant_type: 'authorization_code',
    code: grant.code,
    redirect_uri: grant.redirectUri,
  });
  if (grant.codeVerifier) body.set('code_verifier', grant.codeVerifier);
  const headers: Record<string, string> = {
    'content-type': 'application/x-www-form-urlencoded',
    accept: 'application/json',
  };
  switch (settings.clientAuthenticationMethod) {
    case 'client_secret_basic':
      headers.authorization = basicCredentials(settings.clientId, settings.clientSecret ?? '');
      break;
    case 'client_secret_post':
      body.set('client_id', settings.clientId);
      body.set('client_secret', settings.clientSecret ?? '');
      break;
    case 'private_key_jwt':
      if (!clientKeys) throw new FederatedLoginError('provider', `provider ${settings.key} has no client key`);
      body.set('client_id', settings.clientId);
      body.set('client_assertion_type', 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer');
      body.set('client_assertion', await clientAssertion(settings, clientKeys, now));
      break;
  }
  return { headers, body };
}

/** One call to the provider, its body read whole: any network failure is the provider's. */
async function call(url: string, init: RequestInit, what: string): Promise<{ response: Response; body: string }> {
  try {
    const response = await fetch(url, { ...init, redirect: 'error', signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
    return { response, body: await response.text() };
  } catch (err) {
    throw new FederatedLoginError('provider', `${what} at ${url} failed: ${(err as Error).message}`);
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** The code exchanged for tokens at `token_uri`. */
export async function exchangeCode(
  settings: ExchangeSettings,
  clientKeys: SigningKeys | undefined,
  grant: { code: string; redirectUri: string; codeVerifier?: string },
  now: Date,
): Promise<{ idToken: string; accessToken: string }> {
  const { headers, body } = await tokenRequest(settings, clientKeys, grant, now);
  const { response, body: text } = await call(
    settings.tokenUri,
    { method: 'POST', headers, body },
    'the token request',
  );
  const answer = parseJson(text) as Record<string, unknown> | undefined;
  if (!response.ok) {
    const error = typeof answer?.error === 'string' ? answer.error : `HTTP ${response.status}`;
    throw new FederatedLoginError('provider', `the token endpoint refused the code: ${error}`);
  }
  const idToken = answer?.id_token;
  const accessToken = answer?.access_token;
  if (typeof idToken !== 'string' || typeof accessToken !== 'string')
    throw new FederatedLoginError('token', 'the token response lacks an id_token or an access_token');
  return { idToken, accessToken };
}

function refusal(what: string, err: unknown): FederatedLoginError {
  if (err instanceof errors.JWTExpired) return new FederatedLoginError('token', `the ${what} has expired`);
  if (err instanceof errors.JWTClaimValidationFailed)
    return new FederatedLoginError('token', `the ${what}'s ${err.claim} claim is not accepted`);
  if (err instanceof errors.JOSEError) return new FederatedLoginError('token', `the ${what} is refused: ${err.code}`);
  // Anything else comes from fetching the provider's keys.
  return new FederatedLoginError('provider', `the ${what} cannot be checked: ${(err as Error).message}`);
}

/**
 * OpenID Connect Core §3.1.3.7: the signature against the provider's keys (asymmetric algorithms only), `iss` one
 * of the provider's issuers (`issuer_uri`) when it has one, `aud` holding the client id (and `azp` the client when there are
 * several), `exp` in the future, and the `nonce` of this sign-in.
 */
export async function verifyIdToken(
  settings: Pick<ExchangeSettings, 'clientId' | 'issuers'>,
  keySet: JWTVerifyGetKey,
  idToken: string,
  nonce: string,
  now: Date,
): Promise<JWTPayload> {
  let claims: JWTPayload;
  try {
    ({ payload: claims } = await jwtVerify(idToken, keySet, {
      algorithms: ID_TOKEN_ALGORITHMS,
      audience: settings.clientId,
      ...(settings.issuers.length > 0 ? { issuer: settings.issuers } : {}),
      clockTolerance: CLOCK_TOLERANCE_SECONDS,
      currentDate: now,
      requiredClaims: ['iss', 'sub', 'aud', 'exp', 'iat'],
    }));
  } catch (err) {
    throw refusal('ID token', err);
  }
  if (Array.isArray(claims.aud) && claims.aud.length > 1 && claims.azp !== settings.clientId)
    throw new FederatedLoginError('token', "the ID token's azp claim is not this client");
  if (claims.nonce !== nonce) throw new FederatedLoginError('token', "the ID token's nonce is not this sign-in's");
  return claims;
}

/**
 * The userinfo claims. JSON by default; with `user_info_response_type = jwt` the answer must be a JWT signed with
 * `user_info_jws_algorithm` by a key of the provider (its `iss` and `aud`, when present, must be the provider's
 * and this client). Its `sub` must be the ID token's (OpenID Connect Core §5.3.4).
 */
export async function fetchUserInfo(
  settings: ExchangeSettings,
  keySet: JWTVerifyGetKey,
  accessToken: string,
  sub: string,
  now: Date,
): Promise<Record<string, unknown>> {
  const jwt = settings.userInfoResponseType === 'jwt';
  const { response, body } = await call(
    settings.userInfoUri,
    {
      headers: { authorization: `Bearer ${accessToken}`, accept: jwt ? 'application/jwt' : 'application/json' },
    },
    'the userinfo request',
  );
  if (!response.ok) throw new FederatedLoginError('provider', `userinfo answered HTTP ${response.status}`);
  let claims: Record<string, unknown>;
  if (jwt) {
    const type = response.headers.get('content-type') ?? '';
    if (!/^application\/jwt\b/i.test(type))
      throw new FederatedLoginError('token', `userinfo answered ${type || 'no content type'}, not application/jwt`);
    const token = body.trim();
    try {
      ({ payload: claims } = await jwtVerify(token, keySet, {
        algorithms: [settings.userInfoJwsAlgorithm],
        ...(settings.issuers.length > 0 ? { issuer: settings.issuers } : {}),
        currentDate: now,
        clockTolerance: CLOCK_TOLERANCE_SECONDS,
      }));
    } catch (err) {
      throw refusal('userinfo JWT', err);
    }
    const aud = (claims as JWTPayload).aud;
    if (aud !== undefined && !(Array.isArray(aud) ? aud : [aud]).includes(settings.clientId))
      throw new FederatedLoginError('token', "the userinfo JWT's aud claim is not this client");
  } else {
    const json = parseJson(body);
    if (typeof json !== 'object' || json === null || Array.isArray(json))
      throw new FederatedLoginError('token', 'userinfo answered no JSON object');
    claims = json as Record<string, unknown>;
  }
  if (claims.sub !== sub) throw new FederatedLoginError('token', "userinfo's sub is not the ID token's");
  return claims;
}
