import type { JWTPayload } from 'jose';
import type { AuthContext } from '../context.ts';
import { isExpired, isTokenOf, type Authorization } from '../store/authorizations.ts';
import { InvalidJwtError, verifyJwt } from './jwt.ts';
import { refreshTokenAuthorization } from './refresh-token.ts';

/** A token this server issued, still valid, with the authorization it belongs to. */
export interface LiveToken {
  kind: 'access' | 'refresh';
  /** An access token's claims; for an opaque refresh token, the same facts read from its authorization. */
  claims: JWTPayload;
  authorization: Authorization;
}

/** Why a token presented to revocation or introspection is not live. */
export type DeadToken = { dead: string };

const epoch = (iso: string) => Math.floor(new Date(iso).getTime() / 1000);

/**
 * Finds what an access or refresh token stands for (RFC 7009 and RFC 7662 accept either, with an optional hint of
 * which it is, which the shapes of the two make unnecessary). An access token is live while it verifies (signature,
 * type, issuer, expiry) and its authorization exists and is not revoked; a refresh token while its MAC holds and
 * it is its live authorization's current, unexpired one.
 */
export async function lookUpToken(context: AuthContext, token: string): Promise<LiveToken | DeadToken> {
  const refreshOf = refreshTokenAuthorization(context.refreshTokenKey, token);
  if (refreshOf) {
    const authorization = await context.authorizations.get(refreshOf);
    const dead = deadAuthorization(authorization);
    if (dead) return dead;
    const record = authorization!.spec.refreshToken;
    if (!record || !isTokenOf(record, token) || record.invalidated) return { dead: 'the refresh token was superseded' };
    if (isExpired(record, context.now())) return { dead: 'the refresh token has expired' };
    const { spec } = authorization!;
    const claims: JWTPayload = {
      iss: context.issuer,
      sub: spec.principalName,
      aud: context.issuer,
      client_id: spec.clientId,
      iat: epoch(record.issuedAt),
      exp: epoch(record.expiresAt),
    };
    return { kind: 'refresh', claims, authorization: authorization! };
  }
  let claims: JWTPayload;
  try {
    claims = await verifyJwt(token, context.keys, { kind: 'access', issuer: context.issuer, now: context.now() });
  } catch (err) {
    if (!(err instanceof InvalidJwtError)) throw err;
    return { dead: /typ claim/.test(err.message) ? 'the token is not a token of this server' : err.message };
  }
  const authorization = await context.authorizations.get(String(claims.authorization_id ?? ''));
  return deadAuthorization(authorization) ?? { kind: 'access', claims, authorization: authorization! };
}

function deadAuthorization(authorization: Authorization | undefined): DeadToken | undefined {
  if (!authorization) return { dead: 'the authorization is gone' };
  if (authorization.spec.revocation) return { dead: 'the authorization was revoked' };
  return undefined;
}
