import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  authenticateClient,
  ClientAuthenticationError,
  parseBasic,
  type AuthenticatedClient,
} from '../../../core/auth/clients/authenticate.ts';
import { endpointUrl } from '../../../core/auth/endpoints.ts';
import { OAuthError } from '../../../core/auth/errors.ts';
import { exchangeCode } from '../../../core/auth/grants/authorization-code.ts';
import { clientCredentials } from '../../../core/auth/grants/client-credentials.ts';
import { introspect } from '../../../core/auth/grants/introspection.ts';
import { refresh } from '../../../core/auth/grants/refresh-token.ts';
import { revoke } from '../../../core/auth/grants/revocation.ts';
import type { AuthServices } from '../../plugins/app/authentication/index.ts';
import { noStore } from './no-store.ts';
import {
  introspectionSchema,
  oauthErrorSchema,
  tokenActionRequestSchema,
  tokenRequestSchema,
  tokenResponseSchema,
} from './schemas.ts';

const tags = ['OAuth2'];
const consumes = ['application/x-www-form-urlencoded'];
const errors = { 400: oauthErrorSchema, 401: oauthErrorSchema };

/**
 * The endpoints where a client authenticates (RFC 6749 §2.3): token, revocation (RFC 7009) and introspection
 * (RFC 7662). Every failure answers an RFC 6749 error body through the catalogue.
 */
export function tokenRoutes(auth: AuthServices): FastifyPluginAsyncZod {
  const { context } = auth;
  const audiences = [
    context.issuer,
    ...(['token', 'revocation', 'introspection'] as const).map((e) => endpointUrl(context.issuer, e)),
  ];

  /** The form, checked: a repeated or malformed parameter is invalid_request (RFC 6749 §3.1). */
  const checked = <T>(request: FastifyRequest): T => {
    if (request.validationError)
      throw new OAuthError('invalid_request', `malformed request: ${request.validationError.message}`);
    return request.body as T;
  };

  const client = async (
    request: FastifyRequest,
    body: Record<string, string | undefined>,
  ): Promise<AuthenticatedClient> => {
    const basic = parseBasic(request.headers.authorization);
    if (basic === 'malformed') throw new ClientAuthenticationError('the Basic credentials are malformed', true);
    return authenticateClient(
      {
        basic,
        clientId: body.client_id,
        clientSecret: body.client_secret,
        clientAssertionType: body.client_assertion_type,
        clientAssertion: body.client_assertion,
      },
      {
        clients: context.clients,
        cluster: context.cluster,
        namespace: context.namespace,
        audiences,
        now: context.now(),
      },
    );
  };

  /** Every answer of these endpoints is uncacheable; the error handler answers a refusal as an OAuth2 error. */
  const handle =
    <T>(work: (request: FastifyRequest, reply: FastifyReply) => Promise<T>) =>
    async (request: FastifyRequest, reply: FastifyReply): Promise<T> => {
      noStore(reply);
      return work(request, reply);
    };

  return async (app) => {
    app.post(
      '/oauth2/token',
      {
        config: { authentication: false },
        attachValidation: true,
        schema: {
          summary: 'Token endpoint',
          description:
            'Grants `authorization_code` (with the PKCE `code_verifier`), `refresh_token` (rotated per the ' +
            "client's token settings) and `client_credentials` (the internal registrar client only). Clients " +
            'authenticate with `client_secret_basic`, `client_secret_post`, `private_key_jwt` (RFC 7523) or, ' +
            'public ones, `none`.',
          tags,
          consumes,
          body: tokenRequestSchema,
          response: { 200: tokenResponseSchema, ...errors },
        },
      },
      handle(async (request) => {
        const body = checked<z.infer<typeof tokenRequestSchema>>(request);
        const { client: found, method } = await client(request, body);
        switch (body.grant_type) {
          case 'authorization_code':
            return exchangeCode(context, found, body);
          case 'refresh_token':
            return refresh(context, found, method, body);
          case 'client_credentials':
            return clientCredentials(context, found, method, body);
          default:
            throw new OAuthError('unsupported_grant_type', `grant_type ${body.grant_type} is not supported`);
        }
      }),
    );

    app.post(
      '/oauth2/revoke',
      {
        config: { authentication: false },
        attachValidation: true,
        schema: {
          summary: 'Token revocation (RFC 7009)',
          description:
            'Revokes the authorization an access or refresh token belongs to, so every token of that grant stops ' +
            'working. An unknown or already invalid token is answered with 200 too.',
          tags,
          consumes,
          body: tokenActionRequestSchema,
          response: { 200: z.null().describe('Empty body.'), ...errors },
        },
      },
      handle(async (request, reply) => {
        const body = checked<z.infer<typeof tokenActionRequestSchema>>(request);
        const { client: found } = await client(request, body);
        await revoke(context, found, body);
        return reply.status(200).send(null);
      }),
    );

    app.post(
      '/oauth2/introspect',
      {
        config: { authentication: false },
        attachValidation: true,
        schema: {
          summary: 'Token introspection (RFC 7662)',
          description:
            'Whether an access or refresh token is active, with its claims. Confidential clients may introspect any ' +
            'token; public clients only their own.',
          tags,
          consumes,
          body: tokenActionRequestSchema,
          response: { 200: introspectionSchema, ...errors },
        },
      },
      handle(async (request) => {
        const body = checked<z.infer<typeof tokenActionRequestSchema>>(request);
        const { client: found, method } = await client(request, body);
        return introspect(context, found, method, body);
      }),
    );
  };
}
