import { API_VERSION } from '../../resources/kind.ts';
import type { OAuth2Client } from '../../resources/oauth2-client/schema.ts';
import type { User } from '../../resources/user/schema.ts';
import type { AuthContext } from '../context.ts';
import { OAuthError } from '../errors.ts';
import { requiresProofKey } from '../clients/rules.ts';
import { verifierMatches } from '../pkce.ts';
import {
  isExpired,
  isTokenOf,
  newAuthorizationName,
  newHandle,
  authorizationNameOf,
  revokedCopy,
  storedToken,
} from '../store/authorizations.ts';
import { activeUser } from '../users/directory.ts';
import type { AuthorizationRequest } from './authorization-request.ts';
import { mintForUser, settingsOf, type TokenResponse } from './token-response.ts';

/**
 * The authorization code grant. The code is `<record name>.<secret>`: its record is read by name and the code
 * compared by hash. Using it is a compare-and-swap that invalidates it while storing the tokens' hashes; a code
 * that comes back after that revokes the authorization, so the tokens issued from it stop working (RFC 6749 §4.1.2).
 */
export async function issueCode(
  context: AuthContext,
  request: AuthorizationRequest,
  user: User,
  authTime: string,
): Promise<string> {
  const settings = settingsOf(request.client);
  const name = newAuthorizationName();
  const code = newHandle(name);
  await context.authorizations.create({
    apiVersion: API_VERSION,
    kind: 'OAuth2Authorization',
    metadata: { name, namespace: context.authorizations.namespace },
    spec: {
      clientId: request.client.spec.clientId,
      principalName: user.spec.username,
      grantType: 'authorization_code',
      scopes: request.scopes,
      authorizationCode: storedToken(code, context.now(), settings.authorizationCodeTtlSeconds),
      ...(request.codeChallenge !== undefined ? { codeChallenge: request.codeChallenge } : {}),
      redirectUri: request.redirectUri,
      ...(request.nonce !== undefined ? { nonce: request.nonce } : {}),
      authTime,
    },
  });
  return code;
}

type Outcome = { ok: true; response: Promise<TokenResponse> } | { ok: false; description: string };
const refused = (description: string): Outcome => ({ ok: false, description });

export async function exchangeCode(
  context: AuthContext,
  client: OAuth2Client,
  params: { code?: string; redirect_uri?: string; code_verifier?: string },
): Promise<TokenResponse> {
  const { code } = params;
  const name = code ? authorizationNameOf(code) : undefined;
  if (!code || !name) throw new OAuthError('invalid_grant', 'the authorization code is not valid');
  const settings = settingsOf(client);
  const outcome = await context.authorizations.change<Outcome>(name, async (current) => {
    const now = context.now();
    const record = current?.spec.authorizationCode;
    if (!current || !record || !isTokenOf(record, code))
      return { result: refused('the authorization code is not valid') };
    if (current.spec.revocation) return { result: refused('the authorization code was revoked') };
    if (record.invalidated)
      return {
        write: revokedCopy(current, 'code-replayed', now),
        result: refused('the authorization code was already used; the tokens issued from it are revoked'),
      };
    if (isExpired(record, now)) return { result: refused('the authorization code has expired') };
    if (current.spec.clientId !== client.spec.clientId)
      return { result: refused('the authorization code was issued to another client') };
    if (params.redirect_uri !== current.spec.redirectUri)
      return { result: refused('redirect_uri differs from the one of the authorization request') };
    if (current.spec.codeChallenge) {
      if (!verifierMatches(params.code_verifier, current.spec.codeChallenge))
        return { result: refused('code_verifier is missing or does not match the code_challenge') };
    } else if (requiresProofKey(client) || params.code_verifier !== undefined)
      // A code issued without a challenge is only for a client stored without PKCE, and takes no verifier
      // (OAuth 2.1 §4.1.3): one sent anyway means the client believes in a challenge the server never saw.
      return { result: refused('the authorization code was issued without a code_challenge') };
    const { user, refusal } = await activeUser(context.users, current.spec.principalName, now);
    if (!user) return { result: refused(refusal) };
    const minted = await mintForUser(context, {
      authorizationName: name,
      client,
      user,
      scopes: current.spec.scopes,
      settings,
      refresh: client.spec.authorizationGrantTypes.includes('refresh_token'),
      nonce: current.spec.nonce,
      authTime: current.spec.authTime,
    });
    return {
      write: {
        ...current,
        spec: {
          ...current.spec,
          authorizationCode: { ...record, invalidated: true },
          accessToken: minted.accessToken,
          refreshToken: minted.refreshToken,
          idToken: minted.idToken,
        },
      },
      result: { ok: true, response: minted.response },
    };
  });
  if (!outcome.ok) throw new OAuthError('invalid_grant', outcome.description);
  return outcome.response;
}
