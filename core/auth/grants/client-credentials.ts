import { API_VERSION } from '../../resources/kind.ts';
import type { OAuth2Client } from '../../resources/oauth2-client/schema.ts';
import type { AuthenticationMethod } from '../clients/authenticate.ts';
import { REGISTRAR_CLIENT_ID } from '../clients/registrar.ts';
import type { AuthContext } from '../context.ts';
import { OAuthError } from '../errors.ts';
import { newAuthorizationName } from '../store/authorizations.ts';
import { mintAccessToken } from '../tokens/issue.ts';
import { settingsOf, type TokenResponse } from './token-response.ts';

/**
 * The client_credentials grant, which spec 2 reserves to the internal registrar client. The token is recorded
 * like any other (an OAuth2Authorization with its access token's hash), so it can be revoked.
 */
export async function clientCredentials(
  context: AuthContext,
  client: OAuth2Client,
  method: AuthenticationMethod,
  params: { scope?: string },
): Promise<TokenResponse> {
  const clientId = client.spec.clientId;
  if (clientId !== REGISTRAR_CLIENT_ID || !client.spec.authorizationGrantTypes.includes('client_credentials'))
    throw new OAuthError('unauthorized_client', 'only the internal registrar client may use client_credentials');
  if (method === 'none') throw new OAuthError('unauthorized_client', 'a public client may not use client_credentials');
  const requested = params.scope?.split(' ').filter(Boolean);
  const scopes = requested && requested.length > 0 ? [...new Set(requested)] : [...client.spec.scopes];
  if (scopes.some((s) => !(client.spec.scopes as string[]).includes(s)))
    throw new OAuthError('invalid_scope', 'the client may not request these scopes');
  const settings = settingsOf(client);
  const name = newAuthorizationName();
  const access = await mintAccessToken(context, {
    authorizationName: name,
    clientId,
    subject: clientId,
    scopes,
    now: context.now(),
    ttlSeconds: settings.accessTokenTtlSeconds,
  });
  await context.authorizations.create({
    apiVersion: API_VERSION,
    kind: 'OAuth2Authorization',
    metadata: { name, namespace: context.authorizations.namespace },
    spec: { clientId, principalName: clientId, grantType: 'client_credentials', scopes, accessToken: access.record },
  });
  return {
    access_token: access.value,
    token_type: 'Bearer',
    expires_in: settings.accessTokenTtlSeconds,
    scope: scopes.join(' '),
  };
}
