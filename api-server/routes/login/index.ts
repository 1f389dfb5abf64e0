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
import { csrfMatches, newCsrfValue, sessionCsrfToken } from '../../plugins/app/authentication/csrf.ts';
import { SESSION_TTL_SECONDS } from '../../../core/auth/records/sessions.ts';
import { loginPage, logoutPage } from './pages.ts';
import { localReturnPath } from './return-to.ts';
import { setLogSession } from '../../plugins/app/log-context.ts';

const CSRF_TTL_SECONDS = 3600;
const hidden = { hide: true };

/**
 * The login page (username and password), its session cookie, and logout (DESIGN.md §5). Present when the
 * authorization server is on. Forms are CSRF-protected; responses are never cached.
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

  const sendPage = (reply: FastifyReply, html: string, status = 200) =>
    reply.status(status).type('text/html; charset=utf-8').header('x-frame-options', 'DENY').send(html);

  /** The login form's CSRF value: the cookie's when the browser has one, else a new one it is given now. */
  const csrfFor = (request: FastifyRequest, reply: FastifyReply): string => {
    const secure = auth.secure(request);
    const existing = readCookie(request, CSRF_COOKIE, secure);
    if (existing && /^[A-Za-z0-9_-]{43}$/.test(existing)) return existing;
    const value = newCsrfValue();
    setCookie(reply, CSRF_COOKIE, value, { secure, maxAgeSeconds: CSRF_TTL_SECONDS });
    return value;
  };

  const showLogin = (
    request: FastifyRequest,
    reply: FastifyReply,
    returnTo: string,
    extra: { username?: string; error?: string } = {},
  ) =>
    sendPage(
      reply,
      loginPage({
        instanceName: config.instance.name,
        action: `${prefix}/login`,
        csrf: csrfFor(request, reply),
        returnTo,
        ...extra,
      }),
    );

  app.get('/login', { schema: hidden, config: { authentication: false } }, async (request, reply) => {
    const returnTo = localReturnPath(field(request.query, 'return_to'), `${prefix}/`);
    if (await auth.session(request)) return reply.redirect(returnTo, 303);
    return showLogin(request, reply, returnTo);
  });

  app.post('/login', { schema: hidden, config: { authentication: false } }, async (request, reply) => {
    const secure = auth.secure(request);
    if (!csrfMatches(readCookie(request, CSRF_COOKIE, secure), field(request.body, 'csrf')))
      throw new HttpError(
        'Forbidden',
        'The sign-in form was not sent from this instance (CSRF token missing or wrong).',
      );
    const returnTo = localReturnPath(field(request.body, 'return_to'), `${prefix}/`);
    const username = field(request.body, 'username') ?? '';
    const password = field(request.body, 'password') ?? '';
    const now = auth.context.now();
    const user = await auth.context.users.signIn(username, password, now);
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
    if (cookie) {
      if (!csrfMatches(sessionCsrfToken(cookie), field(request.body, 'csrf')))
        throw new HttpError(
          'Forbidden',
          'The sign-out form was not sent from this instance (CSRF token missing or wrong).',
        );
      await auth.sessions.end(cookie);
    }
    clearCookie(reply, SESSION_COOKIE, secure);
    return reply.redirect(`${prefix}/login`, 303);
  });
};
