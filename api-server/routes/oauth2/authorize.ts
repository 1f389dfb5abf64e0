import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AuthorizeErrorCode } from '../../../core/auth/errors.ts';
import { issueCode } from '../../../core/auth/grants/authorization-code.ts';
import {
  checkAuthorizationRequest,
  type AuthorizationRequest,
  type RawParameters,
} from '../../../core/auth/grants/authorization-request.ts';
import { needsConsent } from '../../../core/auth/store/consents.ts';
import { redirectWith } from '../../../core/auth/redirect-uri.ts';
import type { User } from '../../../core/resources/user/schema.ts';
import { HttpError } from '../../errors.ts';
import type { AuthServices } from '../../plugins/app/authentication/index.ts';
import { field, type FormFields } from '../../plugins/app/authentication/forms.ts';
import { csrfMatches, sessionCsrfToken } from '../../plugins/app/authentication/csrf.ts';
import { basePath } from '../../public-url.ts';
import { authorizeQuerySchema } from './schemas.ts';
import { authorizeErrorPage, consentPage } from './pages.ts';

/** The parameters of an authorization request that the consent form carries back. */
const REQUEST_PARAMETERS = [
  'response_type',
  'client_id',
  'redirect_uri',
  'scope',
  'state',
  'nonce',
  'code_challenge',
  'code_challenge_method',
  'response_mode',
] as const;

/**
 * The authorization endpoint (authorization code with S256 PKCE only) and its consent form. A browser without a
 * session is sent to the login page and comes back; a client that asks for consent gets the consent page once
 * per new scope; the code goes to the registered redirect URI with `state` and `iss` (RFC 9207).
 */
export function authorizeRoutes(auth: AuthServices): FastifyPluginAsyncZod {
  const { context } = auth;
  return async (app) => {
    const { config } = app.stratus;
    const prefix = basePath(context.issuer);

    const sendPage = (reply: FastifyReply, html: string, status = 200) =>
      reply
        .status(status)
        .type('text/html; charset=utf-8')
        .header('cache-control', 'no-store')
        .header('x-frame-options', 'DENY')
        .send(html);

    const redirectError = (
      reply: FastifyReply,
      target: { redirectUri: string; state?: string },
      error: AuthorizeErrorCode,
      description: string,
      status: 302 | 303 = 302,
    ) =>
      reply.header('cache-control', 'no-store').redirect(
        redirectWith(target.redirectUri, {
          error,
          error_description: description,
          state: target.state,
          iss: context.issuer,
        }),
        status,
      );

    const withCode = async (
      reply: FastifyReply,
      request: AuthorizationRequest,
      user: User,
      authTime: string,
      status: 302 | 303,
    ) => {
      const code = await issueCode(context, request, user, authTime);
      return reply
        .header('cache-control', 'no-store')
        .redirect(redirectWith(request.redirectUri, { code, state: request.state, iss: context.issuer }), status);
    };

    const check = (params: RawParameters) => checkAuthorizationRequest(params, context.clients);

    app.get(
      '/oauth2/authorize',
      {
        config: { authentication: false },
        attachValidation: true,
        schema: {
          summary: 'Authorization endpoint',
          description:
            'Authorization code flow with S256 PKCE (RFC 7636) only. Signs the user in (login page) and asks for ' +
            'consent when the client requires it, then redirects to the registered redirect URI with `code`, ' +
            '`state` and `iss`, or with `error`. A request whose client or redirect URI is not registered gets an ' +
            'error page and no redirect.',
          tags: ['OAuth2'],
          querystring: authorizeQuerySchema,
          produces: ['text/html'],
          response: { 302: z.null().describe('Redirect'), 400: z.string().describe('HTML error page') },
        },
      },
      async (request, reply) => {
        const params = request.query as RawParameters;
        const checked = await check(params);
        if (!checked.ok && !checked.redirect)
          return sendPage(reply, authorizeErrorPage(config.instance.name, checked.description), 400);
        if (!checked.ok) return redirectError(reply, checked, checked.error, checked.description);
        const authorization = checked.request;
        const signedIn = await auth.session(request);
        const prompts = authorization.prompts;
        if (!signedIn || prompts.includes('login')) {
          if (prompts.includes('none'))
            return redirectError(reply, authorization, 'login_required', 'the user is not signed in');
          // Back here after signing in, without prompt=login (which would send the user round again).
          const back = new URLSearchParams(request.url.split('?')[1] ?? '');
          back.delete('prompt');
          if (prompts.includes('login') && signedIn) await auth.sessions.end(signedIn.cookie);
          const returnTo = `${prefix}/oauth2/authorize?${back.toString()}`;
          return reply
            .header('cache-control', 'no-store')
            .redirect(`${prefix}/login?${new URLSearchParams({ return_to: returnTo })}`, 302);
        }
        const consented = await auth.consents.scopes(authorization.client.spec.clientId, signedIn.user.spec.username);
        const consent =
          prompts.includes('consent') ||
          (authorization.client.spec.clientSettings.requireAuthorizationConsent &&
            needsConsent(authorization.scopes, consented));
        if (consent) {
          if (prompts.includes('none'))
            return redirectError(reply, authorization, 'consent_required', 'the user has not consented');
          const parameters: Record<string, string> = {};
          for (const name of REQUEST_PARAMETERS) {
            const value = params[name];
            if (typeof value === 'string') parameters[name] = value;
          }
          return sendPage(
            reply,
            consentPage({
              instanceName: config.instance.name,
              action: `${prefix}/oauth2/consent`,
              clientName: authorization.client.spec.name ?? authorization.client.spec.clientId,
              username: signedIn.user.spec.username,
              scopes: authorization.scopes,
              csrf: sessionCsrfToken(signedIn.cookie),
              parameters,
            }),
          );
        }
        return withCode(reply, authorization, signedIn.user, signedIn.session.spec.authTime, 302);
      },
    );

    app.post(
      '/oauth2/consent',
      { config: { authentication: false }, schema: { hide: true } },
      async (request: FastifyRequest, reply) => {
        const form = (request.body ?? {}) as FormFields;
        const signedIn = await auth.session(request);
        if (!signedIn || !csrfMatches(sessionCsrfToken(signedIn.cookie), field(form, 'csrf')))
          throw new HttpError(
            'Forbidden',
            'The consent form was not sent from this instance (CSRF token missing or wrong).',
          );
        const params: RawParameters = {};
        for (const name of REQUEST_PARAMETERS) if (form[name] !== undefined) params[name] = form[name];
        const checked = await check(params);
        if (!checked.ok && !checked.redirect)
          return sendPage(reply, authorizeErrorPage(config.instance.name, checked.description), 400);
        if (!checked.ok) return redirectError(reply, checked, checked.error, checked.description, 303);
        const authorization = checked.request;
        if (field(form, 'decision') !== 'approve')
          return redirectError(reply, authorization, 'access_denied', 'the user denied access', 303);
        await auth.consents.grant(
          authorization.client.spec.clientId,
          signedIn.user.spec.username,
          authorization.scopes,
        );
        return withCode(reply, authorization, signedIn.user, signedIn.session.spec.authTime, 303);
      },
    );
  };
}
