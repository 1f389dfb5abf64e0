import type { OAuth2Client } from '../../resources/oauth2-client/schema.ts';
import type { AuthContext } from '../context.ts';
import { OAuthError } from '../errors.ts';
import { lookUpToken } from '../tokens/lookup.ts';

/**
 * Token revocation (RFC 7009). Revoking an access or a refresh token revokes the authorization it belongs to, so
 * every token of that grant stops working (§2.1 allows revoking the related tokens and the grant). An invalid or
 * already dead token is answered like a revoked one (§2.2); a token of another client is refused.
 */
export async function revoke(context: AuthContext, client: OAuth2Client, params: { token?: string }): Promise<void> {
  if (!params.token) throw new OAuthError('invalid_request', 'token is missing');
  const found = await lookUpToken(context, params.token);
  if ('dead' in found) return;
  if (found.claims.client_id !== client.spec.clientId)
    throw new OAuthError('invalid_request', 'the token was issued to another client');
  await context.authorizations.revoke(found.authorization.metadata.name, 'revoked-by-client', context.now());
}
