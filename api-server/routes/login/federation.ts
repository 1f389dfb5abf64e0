import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { RelyingParty } from '../../../core/auth/federation/login/relying-party.ts';
import { signInThroughProvider, type LoginFailure } from '../../../core/auth/federation/login/sign-in.ts';
import {
  finishLogin,
  LOGIN_STATE_TTL_SECONDS,
  LoginStateError,
  startLogin,
  type LoginState,
} from '../../../core/auth/federation/login/state.ts';
import { recordSignIn } from '../../../core/auth/federation/mapping.ts';
import { SESSION_TTL_SECONDS } from '../../../core/auth/store/sessions.ts';
import { accountRefusal } from '../../../core/auth/users/directory.ts';
import { HttpError } from '../../errors.ts';
import { basePath } from '../../public-url.ts';
import { jwksSchema } from '../../schemas.ts';
import {
  clearCookie,
  CSRF_COOKIE,
  readCookie,
  SESSION_COOKIE,
  setCookie,
} from '../../plugins/app/authentication/cookies.ts';
import { csrfMatches, sessionCsrfToken } from '../../plugins/app/authentication/csrf.ts';
import { field } from '../../plugins/app/authentication/forms.ts';
import { setLogSession } from '../../plugins/app/log-context.ts';
import { linkedAccountsPage, signInErrorPage } from './pages.ts';
import { localReturnPath } from './return-to.ts';

/** The cookie that carries a sign-in's state from the start route to the callback (core/auth/federation/login/state.ts). */
export const LOGIN_STATE_COOKIE = 'stratus_oidc_state';

const hidden = { hide: true };
const keyParams = z.object({ key: z.string().max(100) });

/**
 * Signing in through an external OpenID Connect provider, Stratus being the relying party (spec 2, "OIDC login"):
 * `/oauth2/authorization/<key>` sends the browser to the provider, `/oauth2/code/<key>` takes it back,
 * `/api/publicKeys/<client_id>/jwks.json` publishes the key of `private_key_jwt` client assertions, and
 * `/login/linked-accounts` switches between the accounts of one identity. Every refusal of the callback sends the
 * browser to the login page with a message and creates no session.
 */
export const federationRoutes: FastifyPluginAsyncZod<{ relyingParty: RelyingParty }> = async (
  app,
  { relyingParty },
) => {
  const auth = app.auth!;
  const { config } = app.stratus;
  const prefix = basePath(config.server.baseUrl!);

  const sendPage = (reply: FastifyReply, html: string, status = 200) =>
    reply.status(status).type('text/html; charset=utf-8').header('x-frame-options', 'DENY').send(html);

  const unknownProvider = (reply: FastifyReply) =>
    sendPage(
      reply,
      signInErrorPage(
        config.instance.name,
        'No identity provider of this instance signs in under this name.',
        `${prefix}/login`,
      ),
      404,
    );

  const refuse = (
    request: FastifyRequest,
    reply: FastifyReply,
    failure: LoginFailure,
    detail: string,
    state?: LoginState,
  ) => {
    request.log.info({ provider: state?.provider, failure, detail }, 'sign-in through an external provider refused');
    const query = new URLSearchParams({ oidc_error: failure, ...(state ? { return_to: state.returnTo } : {}) });
    return reply.redirect(`${prefix}/login?${query}`, 303);
  };

  app.get(
    '/oauth2/authorization/:key',
    {
      schema: {
        tags: ['OAuth2'],
        summary: 'Start a sign-in through an external identity provider',
        description:
          "The login page's button of an external provider (`oidc.oauth2.login.enabled = on`). Redirects the browser to the provider's `authorization_uri` with `state`, `nonce`, the S256 PKCE challenge when the provider has `enable_pkce`, its `scopes` and `extra_request_parameters`, and the redirect URI `<server.base.url>/oauth2/code/<key>` (or `redirect_url`); the browser keeps the sign-in's state in the HTTP-only cookie `stratus_oidc_state` for 10 minutes. `return_to` (a path of this instance) is where the browser lands once signed in. An unknown key, or the internal provider, is a 404 page.",
        params: keyParams,
        querystring: z.object({ return_to: z.string().optional() }),
        produces: ['text/html'],
        response: { 302: z.null().describe('Redirect to the provider'), 404: z.string().describe('HTML error page') },
      },
      config: { authentication: false },
    },
    async (request, reply) => {
      const provider = relyingParty.provider(request.params.key);
      if (!provider) return unknownProvider(reply);
      const returnTo = localReturnPath(request.query.return_to, `${prefix}/`);
      const started = await startLogin(auth.context, { provider: provider.key, pkce: provider.enablePkce, returnTo });
      const target = new URL(provider.authorizationUri);
      // The configured extra parameters first, so that they cannot replace the protocol's own.
      for (const [name, value] of Object.entries(provider.extraRequestParameters)) target.searchParams.set(name, value);
      target.searchParams.set('response_type', 'code');
      target.searchParams.set('client_id', provider.clientId);
      target.searchParams.set('redirect_uri', provider.redirectUrl!);
      target.searchParams.set('scope', provider.scopes.join(' '));
      target.searchParams.set('state', started.state.state);
      target.searchParams.set('nonce', started.state.nonce);
      if (started.codeChallenge) {
        target.searchParams.set('code_challenge', started.codeChallenge);
        target.searchParams.set('code_challenge_method', 'S256');
      }
      setCookie(reply, LOGIN_STATE_COOKIE, started.cookie, {
        secure: auth.secure(request),
        maxAgeSeconds: LOGIN_STATE_TTL_SECONDS,
      });
      return reply.redirect(target.href, 302);
    },
  );

  app.get(
    '/oauth2/code/:key',
    {
      schema: {
        tags: ['OAuth2'],
        summary: 'Callback of a sign-in through an external identity provider',
        description:
          "The redirect URI registered at the provider. Checks the state against the browser's cookie (once: a replay is refused), exchanges the code at `token_uri` with the provider's client authentication, verifies the ID token and userinfo against the provider's keys, maps the identity to a local account by `mapping_claim`, starts the session and redirects to the saved `return_to`. Any refusal redirects to `/login?oidc_error=<kind>` (`state`, `denied`, `provider`, `token`, `account`), whose page says what happened, and starts no session.",
        params: keyParams,
        querystring: z.object({
          code: z.string().optional(),
          state: z.string().optional(),
          error: z.string().optional(),
          iss: z.string().optional(),
        }),
        produces: ['text/html'],
        response: {
          303: z.null().describe('Redirect to the saved path, or to the login page with the refusal'),
          404: z.string().describe('HTML error page'),
        },
      },
      config: { authentication: false },
    },
    async (request, reply) => {
      const secure = auth.secure(request);
      const provider = relyingParty.provider(request.params.key);
      if (!provider) return unknownProvider(reply);
      const cookie = readCookie(request, LOGIN_STATE_COOKIE, secure);
      clearCookie(reply, LOGIN_STATE_COOKIE, secure);
      let state: LoginState;
      try {
        state = await finishLogin(auth.context, cookie, provider.key, request.query.state);
      } catch (err) {
        if (err instanceof LoginStateError) return refuse(request, reply, 'state', err.message);
        throw err;
      }
      const { error, iss, code } = request.query;
      if (error) return refuse(request, reply, 'denied', `the provider answered ${error}`, state);
      // RFC 9207: a provider that names itself in the answer must be the one the request went to.
      if (iss !== undefined && provider.issuers.length > 0 && !provider.issuers.includes(iss))
        return refuse(request, reply, 'token', `the answer names another issuer (${iss})`, state);
      if (!code) return refuse(request, reply, 'provider', 'the provider sent no code', state);
      const now = auth.context.now();
      const outcome = await signInThroughProvider(relyingParty.dependencies(provider), { code, state, now });
      if (!outcome.user) return refuse(request, reply, outcome.failure, outcome.detail, state);
      const username = outcome.user.spec.username;
      const session = await auth.sessions.start(username, now, SESSION_TTL_SECONDS, {
        provider: provider.key,
        idToken: outcome.idToken,
      });
      setCookie(reply, SESSION_COOKIE, session.cookie, { secure, maxAgeSeconds: SESSION_TTL_SECONDS });
      setLogSession(request, session.cookie);
      // As after a password sign-in: a CSRF value planted before it is worth nothing now.
      clearCookie(reply, CSRF_COOKIE, secure);
      request.log.info({ username, provider: provider.key }, 'signed in through an external provider');
      return reply.redirect(state.returnTo, 303);
    },
  );

  app.get(
    '/api/publicKeys/:client_id/jwks.json',
    {
      schema: {
        tags: ['OAuth2'],
        summary: 'The public key of the client assertions sent to an external identity provider',
        description:
          'For an external provider with `client_authentication_method = private_key_jwt`, found by its `client_id`: the public half of the key of its keystore (`oidc.provider.<id>.keystore_*`). Its client assertions name this URL (`jwk_set_url`) in their `jku` header. 404 for any other client id.',
        params: z.object({ client_id: z.string().max(255) }),
        response: { 200: jwksSchema },
      },
      config: { authentication: false },
    },
    async (request) => {
      const keys = relyingParty.assertionKeys(request.params.client_id);
      if (!keys)
        throw new HttpError(
          'NotFound',
          'No identity provider of this instance has this client id with private_key_jwt.',
        );
      return { keys: keys.jwks.keys.map((key) => ({ ...key })) };
    },
  );

  if (!config.linkedAccounts.enabled) return;

  /** The signed-in user's identity and the other accounts it may sign in as (flagged for external sign-in). */
  /**
   * The signed-in user's other accounts: those of the same identity (`openId`) flagged for external sign-in and
   * usable now. Only a session started through a provider has any; a password session has none.
   */
  const linkedAccounts = async (request: FastifyRequest) => {
    const signedIn = await auth.session(request);
    if (!signedIn) return undefined;
    const openId = signedIn.user.spec.openId;
    const provider = signedIn.session.spec.provider;
    const now = auth.context.now();
    const others =
      openId && provider
        ? (await auth.context.users.withOpenId(openId)).filter(
            (u) =>
              u.spec.externalAuthOnly &&
              u.spec.username !== signedIn.user.spec.username &&
              accountRefusal(u, now) === undefined,
          )
        : [];
    return { signedIn, provider, others };
  };

  app.get('/login/linked-accounts', { schema: hidden, config: { authentication: false } }, async (request, reply) => {
    const linked = await linkedAccounts(request);
    if (!linked)
      return reply.redirect(`${prefix}/login?return_to=${encodeURIComponent(`${prefix}/login/linked-accounts`)}`, 303);
    return sendPage(
      reply,
      linkedAccountsPage({
        instanceName: config.instance.name,
        action: `${prefix}/login/linked-accounts`,
        csrf: sessionCsrfToken(linked.signedIn.cookie),
        current: linked.signedIn.user.spec.username,
        accounts: linked.others.map((u) => u.spec.username),
      }),
    );
  });

  app.post('/login/linked-accounts', { schema: hidden, config: { authentication: false } }, async (request, reply) => {
    const linked = await linkedAccounts(request);
    if (!linked) return reply.redirect(`${prefix}/login`, 303);
    if (!csrfMatches(sessionCsrfToken(linked.signedIn.cookie), field(request.body, 'csrf')))
      throw new HttpError(
        'Forbidden',
        'The switch form was not sent from this instance (CSRF token missing or wrong).',
      );
    const target = linked.others.find((u) => u.spec.username === field(request.body, 'username'));
    if (!target) throw new HttpError('BadRequest', 'That account is not linked to your identity.');
    // The account switched to becomes the most recent, so the next sign-in of the identity lands on it.
    await recordSignIn(auth.context.cluster, target, auth.context.now());
    await auth.sessions.end(linked.signedIn.cookie);
    clearCookie(reply, SESSION_COOKIE, auth.secure(request));
    request.log.info(
      { username: linked.signedIn.user.spec.username, to: target.spec.username },
      'switching to a linked account',
    );
    // A target exists only for a session that came from a provider.
    const relogin = config.linkedAccounts.reloginUrl ?? `${prefix}/oauth2/authorization/${linked.provider!}`;
    return reply.redirect(config.linkedAccounts.logoutUrl ?? relogin, 303);
  });
};
