import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  liveInitialAccessToken,
  mintInitialAccessToken,
  spendInitialAccessToken,
} from '../../../core/auth/enrolment/initial-access-tokens.ts';
import { checkRegistration, registerClient, RegistrationError } from '../../../core/auth/enrolment/registration.ts';
import { ENDPOINT_PATHS } from '../../../core/auth/endpoints.ts';
import { OAuthError } from '../../../core/auth/errors.ts';
import { matchesAllowlist, redirectWith } from '../../../core/auth/redirect-uri.ts';
import { HttpError } from '../../errors.ts';
import { negotiate } from '../../negotiation.ts';
import { requireAuthority } from '../../plugins/app/authentication/authority.ts';
import { bearerError, type AuthServices } from '../../plugins/app/authentication/index.ts';
import { basePath } from '../../public-url.ts';
import { commonErrorResponses, errorDetailSchema } from '../../schemas.ts';
import { noStore } from './no-store.ts';
import { clientRegistrationSchema, oauthErrorSchema } from './schemas.ts';

export const ENROLMENT_PATH = '/api/auth/enrollDevice';
const MAX_STATE_LENGTH = 512;

/**
 * Device enrolment and dynamic client registration (spec 2 "Enrolment flow"): a signed-in user asks for an
 * Initial Access Token, which goes to the app's deep link; the app registers itself with it at
 * `/connect/register`, once.
 */
export function registrationRoutes(auth: AuthServices): FastifyPluginAsyncZod {
  const { context } = auth;
  return async (app) => {
    const { config } = app.stratus;
    const prefix = basePath(context.issuer);

    app.get(
      ENROLMENT_PATH,
      {
        // The handler sends a browser without a session to the login page first.
        config: { access: 'public' },
        schema: {
          summary: 'Enrol a device: mint an Initial Access Token',
          description:
            'For a signed-in user (a browser without a session is sent to the login page first), a member of ' +
            'one of the groups of the system setting `deviceEnrollmentAllowedUserGroups` when it is set: mints a ' +
            'single-use Initial Access Token valid `deviceEnrollmentIATTtlSeconds` and redirects (302) to ' +
            '`<redirectUri>?iat=<token>&state=<state>`. `redirectUri` must match a glob of ' +
            '`deviceEnrollmentRedirectAllowlist`.',
          tags: ['OAuth2'],
          querystring: z.object({
            redirectUri: z.string().min(1).max(2048).describe('The app’s deep link, on the enrolment allow-list.'),
            state: z.string().min(1).max(MAX_STATE_LENGTH).describe('The app’s nonce, sent back unchanged.'),
          }),
          response: {
            302: z.null().describe('To the deep link with `iat` and `state`, or to the login page.'),
            400: errorDetailSchema,
            401: errorDetailSchema,
            403: errorDetailSchema,
            ...commonErrorResponses,
          },
        },
      },
      async (request, reply) => {
        noStore(reply);
        const { redirectUri, state } = request.query;
        if (!request.caller.authenticated && negotiate(request.headers.accept, undefined) === 'html') {
          const returnTo = `${prefix}${request.url}`;
          return reply.redirect(`${prefix}/login?${new URLSearchParams({ return_to: returnTo })}`, 302);
        }
        const caller = requireAuthority(request);
        const settings = await auth.systemSettings();
        const groups = settings.deviceEnrollmentAllowedUserGroups;
        if (groups.length > 0 && !caller.user.spec.groups.some((g) => groups.includes(g)))
          throw new HttpError('Forbidden', 'Only members of the groups allowed to enrol devices may enrol one.');
        if (!matchesAllowlist(redirectUri, settings.deviceEnrollmentRedirectAllowlist))
          throw new HttpError('BadRequest', 'The redirectUri is not on the device enrolment allow-list.');
        const iat = await mintInitialAccessToken(context, {
          principalName: caller.username,
          redirectUri,
          ttlSeconds: settings.deviceEnrollmentIATTtlSeconds,
        });
        request.log.info({ user: caller.username }, 'initial access token issued for a device enrolment');
        return reply.redirect(redirectWith(redirectUri, { iat, state }), 302);
      },
    );

    app.post(
      ENDPOINT_PATHS.registration,
      {
        config: { authentication: false },
        // RFC 7591 answers any unacceptable metadata with its own error, which checkRegistration gives.
        attachValidation: true,
        schema: {
          summary: 'Dynamic client registration (RFC 7591)',
          description:
            'Presenting an Initial Access Token as `Authorization: Bearer`, a device registers itself as a ' +
            '`private_key_jwt` client: `redirect_uris` on the enrolment allow-list, its public keys inline ' +
            '(`jwks`; `jwks_uri` is refused). Any `scope` sent is ignored: the client gets `openid profile ' +
            'username`. The token is spent by the first registration that presents it.',
          tags: ['OAuth2'],
          body: z.record(z.string(), z.unknown()).describe('RFC 7591 client metadata.'),
          response: {
            201: clientRegistrationSchema,
            400: oauthErrorSchema,
            401: oauthErrorSchema,
            ...commonErrorResponses,
          },
        },
      },
      async (request, reply) => {
        noStore(reply);
        const [scheme, value] = (request.headers.authorization ?? '').trim().split(/\s+/, 2);
        try {
          if (scheme?.toLowerCase() !== 'bearer' || !value)
            throw new OAuthError('invalid_token', 'an initial access token (Authorization: Bearer) is required');
          const iat = await liveInitialAccessToken(context, value);
          const settings = await auth.systemSettings();
          const checked = await checkRegistration(request.body, settings.deviceEnrollmentRedirectAllowlist);
          await spendInitialAccessToken(context, iat);
          const { principalName } = iat.spec;
          const registered = await registerClient(context, checked, {
            principalName,
            refreshTokenTtlSeconds: config.oauth2.dcrRefreshTokenTtlSeconds,
          });
          request.log.info({ clientId: registered.client_id, user: principalName }, 'client registered (RFC 7591)');
          return reply.status(201).send(registered);
        } catch (err) {
          if (err instanceof OAuthError) throw bearerError(err);
          if (err instanceof RegistrationError) throw new HttpError(err.code, err.message);
          throw err;
        }
      },
    );
  };
}
