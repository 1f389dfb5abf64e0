/**
 * openEO's credentials discovery: the OpenID Connect providers openEO clients may sign in with, and HTTP basic
 * exchanged for a sign-in session's token. Registered inside the openEO routes, whose error bodies they share.
 */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AuthContext } from '../../../core/auth/context.ts';
import { INTERNAL_PROVIDER_KEY } from '../../../core/auth/federation/providers.ts';
import { openEoDefaultClients } from '../../../core/auth/openeo/providers.ts';
import { basicChallenge } from '../../plugins/app/authentication/authority.ts';
import { authenticationErrorSchema } from '../../plugins/app/authentication/me.ts';
import { freeForm } from './schemas.ts';

/** openEO's entry of the internal provider: this server, with the default clients an administrator marked. */
async function internalProvider(context: AuthContext, title: string) {
  const defaultClients = await openEoDefaultClients(context.cluster, context.namespace, context.clients);
  return {
    id: INTERNAL_PROVIDER_KEY,
    issuer: context.issuer,
    title,
    description: 'Sign in with your account on this instance.',
    scopes: ['openid', 'profile', 'username'],
    ...(defaultClients.length > 0 && { default_clients: defaultClients }),
  };
}

export function credentialRoutes(fastify: FastifyInstance, tags: string[]): void {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  app.get(
    '/credentials/oidc',
    {
      config: { access: 'public' },
      schema: {
        summary: 'OpenID Connect providers',
        description:
          'With the authorization server on, the internal provider `platform-internal` (issuer `server.base.url`) ' +
          'and, as its default clients, the public clients labelled `climate.stratus.dev/openeo-default-client: ' +
          '"true"`; with `oidc.jwt.token.authentication.enabled`, every external provider with an issuer (title ' +
          '`display_alias`, its scopes, no default client: its client is confidential). Empty while the instance ' +
          'is anonymous.',
        tags,
        response: { 200: freeForm('OidcProviders', 'OpenID Connect providers for openEO clients.') },
      },
    },
    async () => {
      const server = app.authorizationServer;
      const internal = server && (await internalProvider(server.context, app.stratus.config.instance.name));
      const external = app.stratus.config.oidc.jwtTokenAuthenticationEnabled
        ? app.identityProviders.external
            .filter((p) => p.issuers.length > 0)
            .map((p) => ({ id: p.key, issuer: p.issuers[0], title: p.displayAlias, scopes: p.scopes }))
        : [];
      return { providers: [...(internal ? [internal] : []), ...external] };
    },
  );

  if (app.auth) {
    const { sessions, context } = app.auth;
    app.get(
      '/credentials/basic',
      {
        // The authentication hook has checked the Basic credentials; the route only insists on them.
        config: { access: 'public' },
        schema: {
          summary: 'HTTP basic authentication (openEO)',
          description:
            'With a local user’s HTTP basic credentials, answers an access token that openEO clients then send as ' +
            '`Authorization: Bearer basic//<token>`. The token is a sign-in session (12 hours, stored as a hash).',
          tags,
          response: {
            200: z.object({ access_token: z.string() }).meta({ id: 'BasicAccessToken' }),
            401: authenticationErrorSchema,
          },
        },
      },
      async (request, reply) => {
        if (
          !request.caller.authenticated ||
          request.caller.via !== 'basic' ||
          request.headers.authorization?.toLowerCase().startsWith('bearer')
        )
          throw basicChallenge('HTTP basic credentials are required.');
        const { cookie } = await sessions.start(request.caller.username, context.now());
        reply.header('cache-control', 'no-store');
        return { access_token: cookie };
      },
    );
  }
}
