import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { HttpError } from '../../errors.ts';
import { basePath } from '../../public-url.ts';
import { acceptForms, field } from '../../plugins/app/authentication/forms.ts';
import {
  clearCookie,
  CSRF_COOKIE,
  readCookie,
  SESSION_COOKIE,
  setCookie,
} from '../../plugins/app/authentication/cookies.ts';
import {
  csrfMatches,
  loginCsrfKey,
  loginCsrfToken,
  loginCsrfValid,
  newPreSession,
  sessionCsrfToken,
} from '../../plugins/app/authentication/csrf.ts';
import { retryAfterSeconds } from '../../plugins/app/authentication/authority.ts';
import { clientAddress } from '../../plugins/app/authentication/client-address.ts';
import { loginFailureMessage } from '../../../core/auth/federation/login/messages.ts';
import { RelyingParty } from '../../../core/auth/federation/login/relying-party.ts';
import { SESSION_TTL_SECONDS, sessionIdToken, type StoredSession } from '../../../core/auth/store/sessions.ts';
import { federationRoutes } from './federation.ts';
import { loginPage, logoutPage, type ProviderButton } from './pages.ts';
import { localReturnPath } from './return-to.ts';
import { setLogSession } from '../../plugins/app/log-context.ts';

const CSRF_TTL_SECONDS = 3600;
/** What the login cookie of a pre-session holds: a value of newPreSession(). */
const PRE_SESSION = /^[A-Za-z0-9_-]{43}$/;
const hidden = { hide: true };

/**
 * The login page (username and password, and a button per external provider), its session cookie, and logout
 * (DESIGN.md §5). Present when the authorization server or the login through external providers is on. Forms are
 * CSRF-protected; responses are never cached.
 */
export const loginRoutes: FastifyPluginAsyncZod = async (app) => {
  const auth = app.auth;
  const { config } = app.stratus;
  if (!auth || !config.server.baseUrl) return;
  const prefix = basePath(config.server.baseUrl);
  acceptForms(app);
  app.addHook('onSend', async (_request, reply) => {
    reply.header('cache-control', 'no-store');
  });
  const csrfKey = loginCsrfKey(auth.context.refreshTokenKey);
  const relyingParty = await RelyingParty.create(app.identityProviders, {
    loginEnabled: config.oidc.loginEnabled,
    linkedAccounts: config.linkedAccounts.enabled,
    keySets: app.identityProviderKeys,
    users: auth.context.users,
    cluster: auth.context.cluster,
    log: app.log,
  });
  await app.register(federationRoutes, { relyingParty });
  /** One button per external provider (`display_alias`, `login_image`); the internal provider has none. */
  const buttons = (returnTo: string): ProviderButton[] =>
    relyingParty.providers().map((p) => ({
      href: `${prefix}/oauth2/authorization/${encodeURIComponent(p.key)}?return_to=${encodeURIComponent(returnTo)}`,
      label: p.displayAlias,
      image: p.loginImage,
      imagePadding: p.loginImagePadding,
    }));

  const sendPage = (reply: FastifyReply, html: string, status = 200) =>
    reply.status(status).type('text/html; charset=utf-8').header('x-frame-options', 'DENY').send(html);

  /** The login form's CSRF token, for the browser's pre-session: the cookie's when it has one, else a new one. */
  const csrfFor = (request: FastifyRequest, reply: FastifyReply): string => {
    const secure = auth.secure(request);
    const existing = readCookie(request, CSRF_COOKIE, secure);
    if (existing && PRE_SESSION.test(existing)) return loginCsrfToken(csrfKey, existing);
    const preSession = newPreSession();
    setCookie(reply, CSRF_COOKIE, preSession, { secure, maxAgeSeconds: CSRF_TTL_SECONDS });
    return loginCsrfToken(csrfKey, preSession);
  };

  const showLogin = (
    request: FastifyRequest,
    reply: FastifyReply,
    returnTo: string,
    extra: { username?: string; error?: string } = {},
    status = 200,
  ) =>
    sendPage(
      reply,
      loginPage({
        instanceName: config.instance.name,
        action: `${prefix}/login`,
        csrf: csrfFor(request, reply),
        returnTo,
        providers: buttons(returnTo),
        ...extra,
      }),
      status,
    );

  app.get('/login', { schema: hidden, config: { authentication: false } }, async (request, reply) => {
    const returnTo = localReturnPath(field(request.query, 'return_to'), `${prefix}/`);
    if (await auth.session(request)) return reply.redirect(returnTo, 303);
    return showLogin(request, reply, returnTo, { error: loginFailureMessage(field(request.query, 'oidc_error')) });
  });

  app.post('/login', { schema: hidden, config: { authentication: false } }, async (request, reply) => {
    const secure = auth.secure(request);
    if (!loginCsrfValid(csrfKey, readCookie(request, CSRF_COOKIE, secure), field(request.body, 'csrf')))
      throw new HttpError(
        'Forbidden',
        'The sign-in form was not sent from this instance (CSRF token missing or wrong).',
      );
    const returnTo = localReturnPath(field(request.body, 'return_to'), `${prefix}/`);
    const username = field(request.body, 'username') ?? '';
    const password = field(request.body, 'password') ?? '';
    const now = auth.context.now();
    const { user, throttledForMs } = await auth.context.users.signIn(
      username,
      password,
      now,
      clientAddress(request, config),
    );
    if (throttledForMs !== undefined) {
      const seconds = retryAfterSeconds(throttledForMs);
      request.log.info({ username }, 'sign-in throttled');
      reply.header('retry-after', String(seconds));
      const error = `Too many failed sign-ins. Try again in ${seconds} seconds.`;
      return showLogin(request, reply, returnTo, { username, error }, 429);
    }
    if (!user) {
      request.log.info({ username }, 'sign-in refused');
      return showLogin(request, reply, returnTo, { username, error: 'The username or password is wrong.' });
    }
    const { cookie } = await auth.sessions.start(user.spec.username, now);
    setCookie(reply, SESSION_COOKIE, cookie, { secure, maxAgeSeconds: SESSION_TTL_SECONDS });
    setLogSession(request, cookie);
    // A new CSRF value after sign-in: the one an attacker might have planted before it is worth nothing now.
    clearCookie(reply, CSRF_COOKIE, secure);
    request.log.info({ username: user.spec.username }, 'signed in');
    return reply.redirect(returnTo, 303);
  });

  /**
   * OpenID Connect RP-Initiated Logout: a session that came from a provider with `enable_logout` and an
   * `end_session_endpoint` ends there too, with its ID token as hint and `oidc.logout.redirect_url` as where the
   * provider sends the browser afterwards (the provider must know that URL).
   */
  const endSessionUrl = (cookie: string, session: StoredSession): string | undefined => {
    const provider = session.spec.provider ? relyingParty.provider(session.spec.provider) : undefined;
    if (!provider?.enableLogout || !provider.endSessionEndpoint) return undefined;
    const target = new URL(provider.endSessionEndpoint);
    const idToken = sessionIdToken(cookie, session);
    if (idToken) target.searchParams.set('id_token_hint', idToken);
    target.searchParams.set('client_id', provider.clientId);
    if (config.oidc.logoutRedirectUrl)
      target.searchParams.set('post_logout_redirect_uri', config.oidc.logoutRedirectUrl);
    return target.href;
  };

  app.get('/logout', { schema: hidden, config: { authentication: false } }, async (request, reply) => {
    const signedIn = await auth.session(request);
    if (!signedIn) return reply.redirect(`${prefix}/login`, 303);
    return sendPage(
      reply,
      logoutPage({
        instanceName: config.instance.name,
        action: `${prefix}/logout`,
        csrf: sessionCsrfToken(signedIn.cookie),
        username: signedIn.user.spec.username,
      }),
    );
  });

  app.post('/logout', { schema: hidden, config: { authentication: false } }, async (request, reply) => {
    const secure = auth.secure(request);
    const cookie = readCookie(request, SESSION_COOKIE, secure);
    let providerLogout: string | undefined;
    if (cookie) {
      if (!csrfMatches(sessionCsrfToken(cookie), field(request.body, 'csrf')))
        throw new HttpError(
          'Forbidden',
          'The sign-out form was not sent from this instance (CSRF token missing or wrong).',
        );
      const session = await auth.sessions.find(cookie, auth.context.now());
      if (session) providerLogout = endSessionUrl(cookie, session);
      await auth.sessions.end(cookie);
    }
    clearCookie(reply, SESSION_COOKIE, secure);
    return reply.redirect(providerLogout ?? `${prefix}/login`, 303);
  });
};
