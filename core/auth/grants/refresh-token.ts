import type { OAuth2Client } from '../../resources/oauth2-client/schema.ts';
import type { AuthenticationMethod } from '../clients/authenticate.ts';
import type { AuthContext } from '../context.ts';
import { OAuthError } from '../errors.ts';
import { isExpired, isTokenOf, revokedCopy } from '../store/authorizations.ts';
import { refreshTokenAuthorization } from '../tokens/refresh-token.ts';
import { activeUser } from '../users/directory.ts';
import { requestedScopes } from './authorization-request.ts';
import { mintForUser, rotatesRefreshTokens, settingsOf, type TokenResponse } from './token-response.ts';

/**
 * The refresh token grant (RFC 6749 §6) with rotation per the client's token settings. The refresh token names its
 * authorization under a MAC (tokens/refresh-token.ts); the record holds the hash of the one current refresh token.
 * A genuine refresh token that is not the current one was superseded: presenting it again is a replay, answered
 * with `invalid_grant` and the revocation of the whole authorization (its token family), as RFC 9700 §4.14 advises.
 */
type Outcome = { ok: true; response: Promise<TokenResponse> } | { ok: false; description: string };
const refused = (description: string): Outcome => ({ ok: false, description });

export async function refresh(
  context: AuthContext,
  client: OAuth2Client,
  method: AuthenticationMethod,
  params: { refresh_token?: string; scope?: string },
): Promise<TokenResponse> {
  const token = params.refresh_token;
  if (!token) throw new OAuthError('invalid_request', 'refresh_token is missing');
  const name = refreshTokenAuthorization(context.refreshTokenKey, token);
  if (!name) throw new OAuthError('invalid_grant', 'the refresh token is not valid');
  const settings = settingsOf(client);
  const rotate = rotatesRefreshTokens(settings, method);
  if (!client.spec.authorizationGrantTypes.includes('refresh_token'))
    throw new OAuthError('unauthorized_client', 'the client may not use the refresh token grant');

  const outcome = await context.authorizations.change<Outcome>(name, async (current) => {
    const now = context.now();
    const record = current?.spec.refreshToken;
    if (!current || !record) return { result: refused('the refresh token is not valid') };
    if (current.spec.clientId !== client.spec.clientId)
      return { result: refused('the refresh token was issued to another client') };
    if (current.spec.revocation) return { result: refused('the refresh token was revoked') };
    if (!isTokenOf(record, token))
      return {
        write: revokedCopy(current, 'refresh-token-replayed', now),
        result: refused('the refresh token was already used; the authorization is revoked'),
      };
    if (record.invalidated) return { result: refused('the refresh token was revoked') };
    if (isExpired(record, now)) return { result: refused('the refresh token has expired') };
    const scopes = requestedScopes(params.scope) ?? current.spec.scopes;
    if (scopes.some((s) => !current.spec.scopes.includes(s)))
      throw new OAuthError('invalid_scope', 'a refresh cannot widen the granted scopes');
    const { user, refusal } = await activeUser(context.users, current.spec.principalName, now);
    if (!user) return { result: refused(refusal) };
    const minted = await mintForUser(context, {
      authorizationName: name,
      client,
      user,
      scopes,
      settings,
      refresh: rotate,
      ...(rotate ? {} : { keptRefreshToken: token }),
      authTime: current.spec.authTime,
    });
    return {
      write: {
        ...current,
        spec: {
          ...current.spec,
          accessToken: minted.accessToken,
          refreshToken: rotate ? minted.refreshToken : record,
          idToken: minted.idToken ?? current.spec.idToken,
        },
      },
      result: { ok: true, response: minted.response },
    };
  });
  if (!outcome.ok) throw new OAuthError('invalid_grant', outcome.description);
  return outcome.response;
}
