import type { JWTPayload } from 'jose';
import { Lru } from '../cache/lru.ts';
import type { User } from '../resources/user/schema.ts';
import type { AuthContext } from './context.ts';
import { OAuthError } from './errors.ts';
import { INVALID_MAPPING_CLAIM } from './federation/mapping.ts';
import { InvalidJwtError, timely, verifyJwt } from './tokens/jwt.ts';
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

/**
 * The callers of recent tokens, per context (an installation's keys, issuer and directories), each with the stamp of
 * the directories it was found under. Presenting the same token again while no client, authorization or user has
 * changed needs only its expiry and the account's state checked again: the full check made five cache reads and
 * two lookups keyed by the whole token, the most of what a bearer token added to a small GET.
 */
const REMEMBERED_MAX = 5_000;
const remembered = new WeakMap<AuthContext, Lru<{ stamp: string; caller: BearerCaller }>>();

function rememberedOf(context: AuthContext): Lru<{ stamp: string; caller: BearerCaller }> {
  let callers = remembered.get(context);
  if (!callers) remembered.set(context, (callers = new Lru(REMEMBERED_MAX)));
  return callers;
}

/** The caller of a token checked before under the directories as they are now, if it is still timely and may act. */
export function rememberedCaller(context: AuthContext, token: string, now: Date): BearerCaller | undefined {
  const stamp = context.directoriesStamp?.();
  if (stamp === undefined) return undefined;
  const known = rememberedOf(context).get(token);
  if (!known || known.stamp !== stamp) return undefined;
  return timely(known.caller.claims, now) && !accountRefusal(known.caller.user, now) ? known.caller : undefined;
}

export async function authenticateBearer(context: AuthContext, token: string): Promise<BearerCaller> {
  const now = context.now();
  const known = rememberedCaller(context, token, now);
  if (known) return known;
  // Taken before the reads: a change while they run leaves the caller unremembered.
  const stamp = context.directoriesStamp?.();
  const { caller, bySettings } = await checkBearer(context, token, now);
  // A client judged by the system settings is judged again each time: the stamp does not cover the settings.
  if (stamp !== undefined && !bySettings && context.directoriesStamp?.() === stamp)
    rememberedOf(context).set(token, { stamp, caller });
  return caller;
}

async function checkBearer(
  context: AuthContext,
  token: string,
  now: Date,
): Promise<{ caller: BearerCaller; bySettings: boolean }> {
  let claims: JWTPayload;
  try {
    claims = await verifyJwt(token, context.keys, { kind: 'access', issuer: context.issuer, now });
  } catch (err) {
    if (err instanceof InvalidJwtError) throw new OAuthError('invalid_token', err.message);
    throw err;
  }
  const audiences = Array.isArray(claims.aud) ? claims.aud : claims.aud ? [claims.aud] : [];
  if (audiences.length === 0) throw new OAuthError('invalid_token', 'the token has no audience');
  let bySettings = false;
  for (const audience of audiences) {
    const lookup = await context.clients.lookup(audience);
    if (!lookup.found) throw new OAuthError('invalid_token', "the token's audience is not a registered client");
    bySettings ||= lookup.bySettings;
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
  const caller = {
    user,
    claims,
    scopes: String(claims.scope ?? '')
      .split(' ')
      .filter(Boolean),
    clientId: String(claims.client_id ?? audiences[0]),
  };
  return { caller, bySettings };
}

/** The userinfo response (OIDC Core §5.3): the claims the token's scopes release; `openid` is required. */
export async function userinfo(context: AuthContext, token: string): Promise<Record<string, string>> {
  const caller = await authenticateBearer(context, token);
  if (!caller.scopes.includes('openid')) throw new OAuthError('insufficient_scope', 'the token lacks the openid scope');
  return userClaims(caller.user, caller.scopes);
}
