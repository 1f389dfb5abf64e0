import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { userinfo } from '../../../core/auth/own-access-tokens.ts';
import { OAuthError } from '../../../core/auth/errors.ts';
import { bearerError, type AuthServices } from '../../plugins/app/authentication/index.ts';
import { noStore } from './no-store.ts';
import { oauthErrorSchema, userinfoSchema } from './schemas.ts';

/** OIDC userinfo (Core §5.3), with the access token in the Authorization header (RFC 6750 §2.1). */
export function userinfoRoutes(auth: AuthServices): FastifyPluginAsyncZod {
  const handler = async (request: FastifyRequest) => {
    const match = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization?.trim() ?? '');
    try {
      if (!match) throw new OAuthError('invalid_token', 'an access token is required (Authorization: Bearer)');
      return await userinfo(auth.context, match[1]!);
    } catch (err) {
      throw err instanceof OAuthError ? bearerError(err) : err;
    }
  };
  return async (app) => {
    const options = {
      config: { authentication: false },
      schema: {
        summary: 'OpenID Connect userinfo',
        description: 'The claims of the signed-in user that the access token’s scopes release; `openid` is required.',
        tags: ['OAuth2'],
        response: { 200: userinfoSchema, 401: oauthErrorSchema, 403: oauthErrorSchema },
      },
    };
    app.get('/oauth2/userinfo', options, async (request, reply) => {
      noStore(reply);
      return handler(request);
    });
    app.post('/oauth2/userinfo', options, async (request, reply) => {
      noStore(reply);
      return handler(request);
    });
  };
}
