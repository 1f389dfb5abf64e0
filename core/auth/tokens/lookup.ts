import type { JWTPayload } from 'jose';
import type { AuthContext } from '../context.ts';
import { isTokenOf, type Authorization } from '../records/authorizations.ts';
import { InvalidJwtError, verifyJwt, type TokenKind } from './jwt.ts';

/** A token this server issued, still valid, with the authorization it belongs to. */
export interface LiveToken {
  kind: 'access' | 'refresh';
  claims: JWTPayload;
  authorization: Authorization;
}

/** Why a token presented to revocation or introspection is not live. */
export type DeadToken = { dead: string };

/**
 * Finds what an access or refresh token stands for (RFC 7009 and RFC 7662 accept either, with an optional hint of
 * which it is). A token is live while it verifies (signature, type, issuer, expiry), its authorization exists
 * and is not revoked, and, for a refresh token, it is the authorization's current one.
 */
export async function lookUpToken(
  context: AuthContext,
  token: string,
  hint: string | undefined,
): Promise<LiveToken | DeadToken> {
  const kinds: ('access' | 'refresh')[] = hint === 'refresh_token' ? ['refresh', 'access'] : ['access', 'refresh'];
  let why = 'the token is not a token of this server';
  for (const kind of kinds) {
    let claims: JWTPayload;
    try {
      claims = await verifyJwt(token, context.keys, {
        kind: kind as TokenKind,
        issuer: context.issuer,
        now: context.now(),
      });
    } catch (err) {
      if (!(err instanceof InvalidJwtError)) throw err;
      if (!/typ claim/.test(err.message)) why = err.message;
      continue;
    }
    const authorization = await context.authorizations.get(String(claims.authorization_id ?? ''));
    if (!authorization) return { dead: 'the authorization is gone' };
    if (authorization.spec.revocation) return { dead: 'the authorization was revoked' };
    if (
      kind === 'refresh' &&
      (!isTokenOf(authorization.spec.refreshToken, token) || authorization.spec.refreshToken!.invalidated)
    )
      return { dead: 'the refresh token was superseded' };
    return { kind, claims, authorization };
  }
  return { dead: why };
}
