import type { AuthContext } from '../../context.ts';
import { randomSecret, safeEqual } from '../../digest.ts';
import { s256Challenge } from '../../pkce.ts';
import { useClientAssertion } from '../../store/client-assertions.ts';
import { InvalidJwtError, signJwt, verifyJwt } from '../../tokens/jwt.ts';

/**
 * The browser's half of a sign-in through an external provider: the `state` and `nonce` sent to the provider, the
 * PKCE verifier and where to return afterwards. It travels in an HTTP-only cookie as a JWT signed with the
 * authorization server's key (`typ: login-state+jwt`), so any replica reads it and no record is written before the
 * provider answers. The callback accepts it once: its `state` is then recorded as used, like a client assertion's
 * `jti` (a create that answers 409 on every later use), so a replayed callback is refused even with the cookie.
 */
export const LOGIN_STATE_TTL_SECONDS = 600;

export interface LoginState {
  /** The provider key (`google`, `idpa`, `idpb.0`). */
  provider: string;
  state: string;
  nonce: string;
  /** The PKCE verifier when the provider has `enable_pkce`. */
  codeVerifier?: string;
  /** A local path (checked by the login routes) to return to once signed in. */
  returnTo: string;
}

export interface StartedLogin {
  /** The cookie's value. */
  cookie: string;
  state: LoginState;
  /** The S256 challenge of the verifier, for the authorization request. */
  codeChallenge?: string;
}

export async function startLogin(
  context: AuthContext,
  options: { provider: string; pkce: boolean; returnTo: string },
): Promise<StartedLogin> {
  const state: LoginState = {
    provider: options.provider,
    state: randomSecret(),
    nonce: randomSecret(),
    returnTo: options.returnTo,
    ...(options.pkce ? { codeVerifier: randomSecret() } : {}),
  };
  const now = Math.floor(context.now().getTime() / 1000);
  const cookie = await signJwt(context.keys, 'loginState', {
    iss: context.issuer,
    sub: state.provider,
    iat: now,
    exp: now + LOGIN_STATE_TTL_SECONDS,
    state: state.state,
    nonce: state.nonce,
    return_to: state.returnTo,
    ...(state.codeVerifier ? { code_verifier: state.codeVerifier } : {}),
  });
  return {
    cookie,
    state,
    ...(state.codeVerifier ? { codeChallenge: s256Challenge(state.codeVerifier) } : {}),
  };
}

/** Why the callback's state is refused. */
export class LoginStateError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LoginStateError';
  }
}

/**
 * The sign-in that the callback of `provider` continues: the cookie must be this server's, unexpired, for this
 * provider, carry the `state` the provider sent back, and not have been used before. Spends it.
 */
export async function finishLogin(
  context: AuthContext,
  cookie: string | undefined,
  provider: string,
  returnedState: string | undefined,
): Promise<LoginState> {
  if (!cookie) throw new LoginStateError('the browser has no sign-in in progress (no state cookie)');
  if (!returnedState) throw new LoginStateError('the provider sent no state');
  let claims;
  try {
    claims = await verifyJwt(cookie, context.keys, { kind: 'loginState', issuer: context.issuer, now: context.now() });
  } catch (err) {
    if (err instanceof InvalidJwtError) throw new LoginStateError(`the state cookie is refused: ${err.message}`);
    throw err;
  }
  const str = (name: string) => (typeof claims[name] === 'string' ? claims[name] : undefined);
  const state = str('state');
  const nonce = str('nonce');
  const returnTo = str('return_to');
  if (!state || !nonce || returnTo === undefined) throw new LoginStateError('the state cookie is incomplete');
  if (claims.sub !== provider) throw new LoginStateError(`the sign-in was started with provider ${claims.sub}`);
  if (!safeEqual(state, returnedState)) throw new LoginStateError('the state differs from the one sent');
  const fresh = await useClientAssertion(context.cluster, context.namespace, {
    clientId: `oidc-login/${provider}`,
    jti: state,
    expiresAt: new Date((claims.exp ?? 0) * 1000),
  });
  if (!fresh) throw new LoginStateError('the state was used already (a replayed callback)');
  const codeVerifier = str('code_verifier');
  return { provider, state, nonce, returnTo, ...(codeVerifier ? { codeVerifier } : {}) };
}
