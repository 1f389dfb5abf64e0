import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { ASSERTION_ALGORITHMS, SECRET_ASSERTION_ALGORITHMS } from '../../../core/auth/clients/authenticate.ts';
import { endpointUrl, ENDPOINT_PATHS } from '../../../core/auth/endpoints.ts';
import { SUPPORTED_SCOPES } from '../../../core/auth/grants/authorization-request.ts';
import { SIGNING_ALG } from '../../../core/auth/keys/signing-keys.ts';
import { clientAuthenticationMethod } from '../../../core/resources/oauth2-client/schema.ts';
import type { AuthServices } from '../../plugins/app/authentication/index.ts';
import { discoverySchema } from './schemas.ts';
import { jwksSchema } from '../../schemas.ts';

/** Every method a client may register authenticates. */
const AUTH_METHODS = clientAuthenticationMethod.options;
const AUTH_SIGNING_ALGORITHMS = [...ASSERTION_ALGORITHMS, ...SECRET_ASSERTION_ALGORITHMS];

/** OpenID Connect Discovery metadata; the issuer and every URL derive from `server.base.url`. */
export function discoveryDocument(issuer: string): Record<string, unknown> {
  return {
    issuer,
    authorization_endpoint: endpointUrl(issuer, 'authorization'),
    token_endpoint: endpointUrl(issuer, 'token'),
    jwks_uri: endpointUrl(issuer, 'jwks'),
    userinfo_endpoint: endpointUrl(issuer, 'userinfo'),
    revocation_endpoint: endpointUrl(issuer, 'revocation'),
    introspection_endpoint: endpointUrl(issuer, 'introspection'),
    registration_endpoint: endpointUrl(issuer, 'registration'),
    scopes_supported: [...SUPPORTED_SCOPES],
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token', 'client_credentials'],
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: [SIGNING_ALG],
    token_endpoint_auth_methods_supported: AUTH_METHODS,
    token_endpoint_auth_signing_alg_values_supported: AUTH_SIGNING_ALGORITHMS,
    revocation_endpoint_auth_methods_supported: AUTH_METHODS,
    revocation_endpoint_auth_signing_alg_values_supported: AUTH_SIGNING_ALGORITHMS,
    introspection_endpoint_auth_methods_supported: AUTH_METHODS,
    introspection_endpoint_auth_signing_alg_values_supported: AUTH_SIGNING_ALGORITHMS,
    code_challenge_methods_supported: ['S256'],
    claims_supported: [
      'sub',
      'iss',
      'aud',
      'exp',
      'iat',
      'auth_time',
      'nonce',
      'azp',
      'at_hash',
      'username',
      'preferred_username',
      'email',
    ],
    authorization_response_iss_parameter_supported: true,
    prompt_values_supported: ['none', 'login', 'consent'],
    request_parameter_supported: false,
    request_uri_parameter_supported: false,
  };
}

export function discoveryRoutes(auth: AuthServices): FastifyPluginAsyncZod {
  return async (app) => {
    const document = discoveryDocument(auth.context.issuer);
    app.get(
      ENDPOINT_PATHS.discovery,
      {
        config: { authentication: false },
        schema: { summary: 'OpenID Connect discovery', tags: ['OAuth2'], response: { 200: discoverySchema } },
      },
      async (_request, reply) => {
        reply.header('cache-control', 'public, max-age=300');
        return document;
      },
    );
    app.get(
      ENDPOINT_PATHS.jwks,
      {
        config: { authentication: false },
        schema: {
          summary: 'Signing keys (JWKS)',
          description: 'The RSA public keys that verify issued tokens: the active key first, then retired ones.',
          tags: ['OAuth2'],
          response: { 200: jwksSchema },
        },
      },
      async (_request, reply) => {
        reply.header('cache-control', 'public, max-age=300');
        return { keys: auth.context.keys.jwks.keys.map((key) => ({ ...key })) };
      },
    );
  };
}
