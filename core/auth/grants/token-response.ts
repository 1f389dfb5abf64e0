import type { OAuth2Client } from '../../resources/oauth2-client/schema.ts';
import type { User } from '../../resources/user/schema.ts';
import type { AuthenticationMethod } from '../clients/authenticate.ts';
import { tokenSettingsOf, type TokenSettings } from '../clients/token-settings.ts';
import type { AuthContext } from '../context.ts';
import { OAuthError } from '../errors.ts';
import type { StoredToken } from '../store/authorizations.ts';
import { mintAccessToken, mintIdToken, mintRefreshToken } from '../tokens/issue.ts';

/** The successful token response (RFC 6749 §5.1, OIDC Core §3.1.3.3). */
export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  scope: string;
  refresh_token?: string;
  id_token?: string;
}

/** The token settings of a client, or `unauthorized_client` when they cannot be read. */
export function settingsOf(client: OAuth2Client): TokenSettings {
  const result = tokenSettingsOf(client);
  if (!result.ok)
    throw new OAuthError(
      'unauthorized_client',
      `the client's token settings are invalid: ${result.problems.join('; ')}`,
    );
  return result.settings;
}

/**
 * Whether a refresh replaces the refresh token. A public client's refresh token is always rotated (OAuth 2.1
 * §4.3.1: it cannot be bound to the client otherwise), whatever its settings.
 */
export function rotatesRefreshTokens(settings: TokenSettings, method: AuthenticationMethod): boolean {
  return !settings.reuseRefreshTokens || method === 'none';
}

export interface MintedSet {
  /** Settled once the ID token's signature is made, which may be after the tokens' records are written. */
  response: Promise<TokenResponse>;
  accessToken: StoredToken;
  refreshToken?: StoredToken;
  idToken?: StoredToken;
}

/**
 * Mints the tokens of one grant for a user: access, refresh (when asked), ID token (with `openid`). The ID token's
 * signature is made while the caller writes the records: the response waits for it, the write does not. A
 * response the caller drops (its write lost a compare-and-swap and is tried again) is settled quietly: its
 * failure, if it fails, is no unhandled rejection, and whoever awaits it still sees it.
 */
export async function mintForUser(
  context: AuthContext,
  input: {
    authorizationName: string;
    client: OAuth2Client;
    user: User;
    scopes: string[];
    settings: TokenSettings;
    refresh: boolean;
    /** The refresh token the grant keeps (a refresh without rotation), answered again. */
    keptRefreshToken?: string;
    nonce?: string;
    authTime?: string;
  },
): Promise<MintedSet> {
  const now = context.now();
  const clientId = input.client.spec.clientId;
  const subject = input.user.spec.username;
  const access = await mintAccessToken(context, {
    authorizationName: input.authorizationName,
    clientId,
    subject,
    user: input.user,
    scopes: input.scopes,
    now,
    ttlSeconds: input.settings.accessTokenTtlSeconds,
  });
  const refresh = input.refresh
    ? mintRefreshToken(context.refreshTokenKey, {
        authorizationName: input.authorizationName,
        now,
        ttlSeconds: input.settings.refreshTokenTtlSeconds,
      })
    : undefined;
  const id = input.scopes.includes('openid')
    ? mintIdToken(context, {
        clientId,
        user: input.user,
        scopes: input.scopes,
        nonce: input.nonce,
        authTime: input.authTime,
        accessToken: access.value,
        now,
        ttlSeconds: input.settings.accessTokenTtlSeconds,
      })
    : undefined;
  const response: TokenResponse = {
    access_token: access.value,
    token_type: 'Bearer',
    expires_in: input.settings.accessTokenTtlSeconds,
    scope: input.scopes.join(' '),
    ...(refresh ? { refresh_token: refresh.value } : {}),
    ...(input.keptRefreshToken !== undefined ? { refresh_token: input.keptRefreshToken } : {}),
  };
  const complete = id ? id.value.then((idToken) => ({ ...response, id_token: idToken })) : Promise.resolve(response);
  complete.catch(() => undefined);
  return {
    response: complete,
    accessToken: access.record,
    ...(refresh ? { refreshToken: refresh.record } : {}),
    ...(id ? { idToken: id.record } : {}),
  };
}
