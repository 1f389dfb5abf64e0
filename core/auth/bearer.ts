import type { JWTPayload } from 'jose';
import type { User } from '../resources/user/schema.ts';
import type { AuthContext } from './context.ts';
import { OAuthError } from './errors.ts';
import { INVALID_MAPPING_CLAIM } from './federation/mapping.ts';
import { InvalidJwtError, verifyJwt } from './tokens/jwt.ts';
import { userClaims } from './tokens/issue.ts';
import { accountRefusal } from './users/directory.ts';

/**
 * The resource server's check of `Authorization: Bearer <access token>` for this server's own tokens (spec 2
 * "JWT bearer validation"): signature and type, issuer, expiry; every audience a registered client; the
 * authorization not revoked; the local user found by the mapping claim and allowed to act.
 */
export interface BearerCaller {
  user: User;
  claims: JWTPayload;
  scopes: string[];
  clientId: string;
}

export async function authenticateBearer(context: AuthContext, token: string): Promise<BearerCaller> {
  const now = context.now();
  let claims: JWTPayload;
  try {
    claims = await verifyJwt(token, context.keys, { kind: 'access', issuer: context.issuer, now });
  } catch (err) {
    if (err instanceof InvalidJwtError) throw new OAuthError('invalid_token', err.message);
    throw err;
  }
  const audiences = Array.isArray(claims.aud) ? claims.aud : claims.aud ? [claims.aud] : [];
  if (audiences.length === 0) throw new OAuthError('invalid_token', 'the token has no audience');
  for (const audience of audiences) {
    if (!(await context.clients.find(audience)))
      throw new OAuthError('invalid_token', "the token's audience is not a registered client");
  }
  const authorization = await context.authorizations.get(String(claims.authorization_id ?? ''));
  if (!authorization || authorization.spec.revocation) throw new OAuthError('invalid_token', 'the token was revoked');
  const claim = context.mappingClaim;
  const value = claims[claim];
  if ((claim !== 'username' && claim !== 'email') || typeof value !== 'string')
    throw new OAuthError('invalid_token', INVALID_MAPPING_CLAIM);
  const user = await context.users.find(claim, value);
  if (!user) throw new OAuthError('invalid_token', 'the token names no local user');
  const refusal = accountRefusal(user, now);
  if (refusal) throw new OAuthError('invalid_token', refusal);
  return {
    user,
    claims,
    scopes: String(claims.scope ?? '')
      .split(' ')
      .filter(Boolean),
    clientId: String(claims.client_id ?? audiences[0]),
  };
}

/** The userinfo response (OIDC Core §5.3): the claims the token's scopes release; `openid` is required. */
export async function userinfo(context: AuthContext, token: string): Promise<Record<string, string>> {
  const caller = await authenticateBearer(context, token);
  if (!caller.scopes.includes('openid')) throw new OAuthError('insufficient_scope', 'the token lacks the openid scope');
  return userClaims(caller.user, caller.scopes);
}
