import { z } from 'zod';

/** Records of the OAuth2 endpoints, for validation of what they answer and for the OpenAPI description. */

export const oauthErrorSchema = z
  .object({ error: z.string(), error_description: z.string().optional() })
  .meta({ id: 'OAuth2Error', description: 'RFC 6749 §5.2 error response.' });

export const tokenResponseSchema = z
  .object({
    access_token: z.string().describe('RS256-signed JWT access token (RFC 9068).'),
    token_type: z.literal('Bearer'),
    expires_in: z.number().int().describe('Lifetime of the access token in seconds.'),
    scope: z.string(),
    refresh_token: z.string().optional(),
    id_token: z.string().optional().describe('With the openid scope.'),
  })
  .meta({ id: 'OAuth2TokenResponse', description: 'RFC 6749 §5.1 token response.' });

const optional = z.string().optional();

/** Form parameters are strings; one given twice is refused by the handler with invalid_request. */
export const tokenRequestSchema = z
  .object({
    grant_type: z.string().describe('authorization_code, refresh_token or client_credentials.'),
    code: optional,
    redirect_uri: optional,
    code_verifier: optional.describe('PKCE verifier (RFC 7636); S256 only.'),
    refresh_token: optional,
    scope: optional.describe('refresh_token: narrows the granted scopes; offline_access is ignored.'),
    client_id: optional,
    client_secret: optional.describe('client_secret_post.'),
    client_assertion_type: optional.describe('urn:ietf:params:oauth:client-assertion-type:jwt-bearer'),
    client_assertion: optional.describe('private_key_jwt (RFC 7523).'),
  })
  .meta({ id: 'OAuth2TokenRequest' });

export const tokenActionRequestSchema = z
  .object({
    token: z.string(),
    token_type_hint: z.enum(['access_token', 'refresh_token']).optional(),
    client_id: optional,
    client_secret: optional,
    client_assertion_type: optional,
    client_assertion: optional,
  })
  .meta({ id: 'OAuth2TokenActionRequest', description: 'Revocation (RFC 7009) and introspection (RFC 7662).' });

export const introspectionSchema = z
  .object({
    active: z.boolean(),
    scope: z.string().optional(),
    client_id: z.string().optional(),
    username: z.string().optional(),
    token_type: z.string().optional(),
    exp: z.number().optional(),
    iat: z.number().optional(),
    nbf: z.number().optional(),
    sub: z.string().optional(),
    aud: z.union([z.string(), z.array(z.string())]).optional(),
    iss: z.string().optional(),
    jti: z.string().optional(),
  })
  .meta({ id: 'OAuth2Introspection', description: 'RFC 7662 §2.2.' });

export const authorizeQuerySchema = z
  .object({
    response_type: z.string().describe('code'),
    client_id: z.string(),
    redirect_uri: z.string().describe('Compared verbatim with the registered URIs.'),
    scope: optional.describe(
      'Space-separated: openid, profile, username, email (those the client registered); offline_access is ignored ' +
        '(a refresh token follows the client’s refresh_token grant).',
    ),
    state: optional,
    nonce: optional,
    code_challenge: optional.describe(
      'S256 challenge (RFC 7636); required of every client but one stored without PKCE ' +
        '(settings.client.require-proof-key false, kept as stored).',
    ),
    code_challenge_method: z.literal('S256').optional().describe('S256, with code_challenge.'),
    prompt: optional.describe('none, login or consent.'),
    response_mode: optional.describe('query (the only mode).'),
  })
  // No component id: @fastify/swagger lays query parameters out from an inline schema only.
  .describe('OAuth2 authorization request (RFC 6749 §4.1.1, RFC 7636, OIDC Core §3.1.2.1).');

export const discoverySchema = z
  .record(z.string(), z.unknown())
  .meta({ id: 'OpenIDConfiguration', description: 'OpenID Connect Discovery 1.0 provider metadata.' });

export const userinfoSchema = z
  .record(z.string(), z.string())
  .meta({ id: 'UserInfo', description: 'OIDC Core §5.3: sub and the claims the scopes release.' });

export const clientRegistrationSchema = z
  .object({
    client_id: z.string(),
    client_id_issued_at: z.number().int(),
    client_name: z.string().optional(),
    redirect_uris: z.array(z.string()),
    grant_types: z.array(z.string()),
    response_types: z.array(z.literal('code')),
    token_endpoint_auth_method: z.literal('private_key_jwt'),
    token_endpoint_auth_signing_alg: z.string().optional(),
    scope: z.string().describe('Always `openid profile username`.'),
    jwks: z.object({ keys: z.array(z.record(z.string(), z.unknown())) }),
  })
  .meta({ id: 'ClientRegistrationResponse', description: 'RFC 7591 §3.2.1 client information response.' });
