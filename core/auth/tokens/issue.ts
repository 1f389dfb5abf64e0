import { hash, randomUUID, type KeyObject } from 'node:crypto';
import type { JWTPayload } from 'jose';
import type { User } from '../../resources/user/schema.ts';
import type { SigningKeys } from '../keys/signing-keys.ts';
import { storedToken, type StoredToken } from '../store/authorizations.ts';
import { jwtSigningInput, signJwt, signJwtInput } from './jwt.ts';
import { newRefreshToken } from './refresh-token.ts';

/**
 * The tokens the authorization server issues:
 * - access tokens, RS256 JWTs (RFC 9068, `typ: at+jwt`) for the API: `aud` is the client id (spec 2), `username`
 *   (and `email`) map the token to the local user, `authorization_id` names the record that can revoke it;
 * - refresh tokens, opaque and MAC'd (`refresh-token.ts`): only the authorization server reads them;
 * - ID tokens, RS256 JWTs (OIDC Core §2) with the claims the granted scopes allow.
 */
export interface TokenContext {
  issuer: string;
  keys: SigningKeys;
}

export interface Minted {
  value: string;
  record: StoredToken;
}

/**
 * A JWT whose signature is still being made, with its record: the hash of its signing input, which names it as
 * well as its whole value would (`jwtSigningInput`), so the record can be written while the signature is made.
 */
export interface Signing {
  value: Promise<string>;
  record: StoredToken;
}

const epoch = (date: Date) => Math.floor(date.getTime() / 1000);

/** Claims about the user that the granted scopes release (ID token and userinfo). */
export function userClaims(user: User, scopes: readonly string[]): Record<string, string> {
  const claims: Record<string, string> = { sub: user.spec.username };
  if (scopes.includes('username')) claims.username = user.spec.username;
  if (scopes.includes('profile')) claims.preferred_username = user.spec.username;
  if (scopes.includes('email') && user.spec.email) claims.email = user.spec.email;
  return claims;
}

export interface AccessTokenInput {
  authorizationName: string;
  clientId: string;
  /** The user's username, or the client id for client_credentials. */
  subject: string;
  user?: User;
  scopes: readonly string[];
  now: Date;
  ttlSeconds: number;
}

/** The claims every JWT of the server has: issuer, issue and expiry times. */
const timed = (context: TokenContext, claims: JWTPayload, now: Date, ttl: number): JWTPayload => ({
  ...claims,
  iss: context.issuer,
  iat: epoch(now),
  exp: epoch(now) + ttl,
});

export async function mintAccessToken(context: TokenContext, input: AccessTokenInput): Promise<Minted> {
  const claims: JWTPayload = {
    sub: input.subject,
    aud: input.clientId,
    client_id: input.clientId,
    scope: input.scopes.join(' '),
    nbf: epoch(input.now),
    jti: randomUUID(),
    authorization_id: input.authorizationName,
  };
  if (input.user) {
    claims.username = input.user.spec.username;
    if (input.user.spec.email) claims.email = input.user.spec.email;
  }
  const value = await signJwt(context.keys, 'access', timed(context, claims, input.now, input.ttlSeconds));
  return { value, record: storedToken(value, input.now, input.ttlSeconds) };
}

/** An opaque refresh token (`refresh-token.ts`) of the authorization, valid for `ttlSeconds`. */
export function mintRefreshToken(
  refreshTokenKey: KeyObject,
  input: Pick<AccessTokenInput, 'authorizationName' | 'now' | 'ttlSeconds'>,
): Minted {
  const value = newRefreshToken(refreshTokenKey, input.authorizationName);
  return { value, record: storedToken(value, input.now, input.ttlSeconds) };
}

/** OIDC Core §3.1.3.6: the left half of the access token's SHA-256, base64url. */
export function accessTokenHash(accessToken: string): string {
  const digest = hash('sha256', accessToken, 'buffer');
  return digest.subarray(0, digest.length / 2).toString('base64url');
}

/**
 * The ID token of a grant, its signature still being made (`Signing`): its `at_hash` needs the access token
 * signed first, and the grant's record is written while this one is signed.
 */
export function mintIdToken(
  context: TokenContext,
  input: {
    clientId: string;
    user: User;
    scopes: readonly string[];
    nonce?: string;
    authTime?: string;
    accessToken: string;
    now: Date;
    ttlSeconds: number;
  },
): Signing {
  const claims: JWTPayload = {
    ...userClaims(input.user, input.scopes),
    aud: input.clientId,
    azp: input.clientId,
    at_hash: accessTokenHash(input.accessToken),
  };
  if (input.nonce !== undefined) claims.nonce = input.nonce;
  if (input.authTime !== undefined) claims.auth_time = epoch(new Date(input.authTime));
  const signingInput = jwtSigningInput(context.keys, 'id', timed(context, claims, input.now, input.ttlSeconds));
  return {
    value: signJwtInput(context.keys, signingInput),
    record: storedToken(signingInput, input.now, input.ttlSeconds),
  };
}
