import type { OAuth2Client } from '../../resources/oauth2-client/schema.ts';
import type { AuthenticationMethod } from '../clients/authenticate.ts';
import type { AuthContext } from '../context.ts';
import { OAuthError } from '../errors.ts';
import { lookUpToken } from '../tokens/lookup.ts';
import { activeUser } from '../users/directory.ts';

/** The introspection response (RFC 7662 §2.2); an inactive token says nothing more than `active: false`. */
export type IntrospectionResponse =
  | { active: false }
  | {
      active: true;
      scope: string;
      client_id: string;
      username?: string;
      token_type: 'Bearer' | 'refresh_token';
      exp: number;
      iat: number;
      nbf?: number;
      sub: string;
      aud: string | string[];
      iss: string;
      jti?: string;
    };

/**
 * Token introspection (RFC 7662). A confidential client may introspect any token (as a resource server does);
 * a public client only the tokens issued to it, so that it cannot probe others'.
 */
export async function introspect(
  context: AuthContext,
  client: OAuth2Client,
  method: AuthenticationMethod,
  params: { token?: string },
): Promise<IntrospectionResponse> {
  if (!params.token) throw new OAuthError('invalid_request', 'token is missing');
  const found = await lookUpToken(context, params.token);
  if ('dead' in found) return { active: false };
  const { claims, authorization, kind } = found;
  if (method === 'none' && claims.client_id !== client.spec.clientId) return { active: false };
  if (authorization.spec.grantType !== 'client_credentials') {
    if (!(await activeUser(context.users, authorization.spec.principalName, context.now())).user)
      return { active: false };
  }
  const scope = kind === 'access' ? String(claims.scope ?? '') : authorization.spec.scopes.join(' ');
  return {
    active: true,
    scope,
    client_id: String(claims.client_id),
    ...(typeof claims.username === 'string' ? { username: claims.username } : {}),
    ...(kind === 'refresh' ? { username: authorization.spec.principalName } : {}),
    token_type: kind === 'access' ? 'Bearer' : 'refresh_token',
    exp: claims.exp!,
    iat: claims.iat!,
    ...(claims.nbf !== undefined ? { nbf: claims.nbf } : {}),
    sub: claims.sub!,
    aud: claims.aud!,
    iss: claims.iss!,
    ...(claims.jti !== undefined ? { jti: claims.jti } : {}),
  };
}
