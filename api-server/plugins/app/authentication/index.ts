import fp from 'fastify-plugin';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ClientDirectory } from '../../../../core/auth/clients/directory.ts';
import { ensureRegistrarClient } from '../../../../core/auth/clients/registrar.ts';
import type { AuthContext } from '../../../../core/auth/context.ts';
import { OAuthError } from '../../../../core/auth/errors.ts';
import { rememberedCaller } from '../../../../core/auth/own-access-tokens.ts';
import { authenticateAnyBearer, type BearerSources } from '../../../../core/auth/federation/bearer-by-issuer.ts';
import { ProviderKeySets } from '../../../../core/auth/federation/provider-keys.ts';
import {
  resolveProviders,
  type InternalProvider,
  type ProviderRegistry,
} from '../../../../core/auth/federation/providers.ts';
import { tokenMacKey } from '../../../../core/auth/keys/token-key.ts';
import { resolveSigningKeys } from '../../../../core/auth/keys/resolve.ts';
import { AuthorizationStore } from '../../../../core/auth/store/authorizations.ts';
import { Consents } from '../../../../core/auth/store/consents.ts';
import { Sessions, type StoredSession } from '../../../../core/auth/store/sessions.ts';
import { readSystemSettings, type SystemSettings } from '../../../../core/auth/system-settings.ts';
import { activeUser, UserDirectory } from '../../../../core/auth/users/directory.ts';
import type { Cluster } from '../../../../core/cluster/port.ts';
import { oauth2AuthorizationKind } from '../../../../core/resources/oauth2-authorization/schema.ts';
import { oauth2ClientKind } from '../../../../core/resources/oauth2-client/schema.ts';
import { userKind, type User } from '../../../../core/resources/user/schema.ts';
import { HttpError } from '../../../errors.ts';
import { basicChallenge, REALM, signInThrottled } from './authority.ts';
import { ANONYMOUS, callerOf, type Caller } from './caller.ts';
import { clientAddress } from './client-address.ts';
import { isSecureRequest, readCookie, SESSION_COOKIE } from './cookies.ts';

/**
 * The sign-in services: sessions and the login page's keys, present when the authorization server is on or the
 * login page is (`oidc.oauth2.login.enabled`, which works without the authorization server).
 */
export interface AuthServices {
  context: AuthContext;
  sessions: Sessions;
  consents: Consents;
  systemSettings(): Promise<SystemSettings>;
  /** The signed-in session of a browser request and its user, when both are valid. */
  session(request: FastifyRequest): Promise<{ cookie: string; session: StoredSession; user: User } | undefined>;
  /** Whether this request reaches the instance over HTTPS (cookies are Secure then). */
  secure(request: FastifyRequest): boolean;
}

declare module 'fastify' {
  interface FastifyInstance {
    auth: AuthServices | undefined;
    /** The same services when the authorization server is on (`oauth2.server.enabled`): its endpoints need it. */
    authorizationServer: AuthServices | undefined;
    /** The identity providers of the configuration (core/auth/federation/providers.ts), judged once at startup. */
    identityProviders: ProviderRegistry;
    /** Their signing keys, fetched on first use: one cache for the bearer filter and the login flow. */
    identityProviderKeys: ProviderKeySets;
  }
  interface FastifyRequest {
    /** Who sent the request; anonymous unless credentials were accepted. */
    caller: Caller;
  }
  interface FastifyContextConfig {
    /** false: the route reads credentials itself (the OAuth2 endpoints, where Basic authenticates a client). */
    authentication?: boolean;
  }
}

/** RFC 6750 §3: the challenge that goes with a refused bearer token, naming the error. */
export function bearerError(err: OAuthError): HttpError {
  const description = err.message.replace(/["\\]/g, '');
  return new HttpError(err.code, err.message, [], {
    headers: {
      'www-authenticate': `Bearer realm="${REALM}", error="${err.code}", error_description="${description}"`,
    },
  });
}

/** openEO clients that signed in at `/credentials/basic` send `Bearer basic//<token>`. */
export const OPENEO_BASIC_PREFIX = 'basic//';

/**
 * openEO clients send `Bearer oidc/<provider id>/<token>` (openEO API, "Authentication"), other clients the token
 * alone; the provider id is the key of `/credentials/oidc`.
 */
function openEoBearerToken(value: string): { token: string; providerKey?: string } {
  if (!value.startsWith('oidc/')) return { token: value };
  const [, providerKey = '', token = ''] = /^oidc\/([^/]*)\/(.*)$/.exec(value) ?? [];
  return { token, providerKey };
}

/** The scheme of an `Authorization` header, lower-cased, and its value. */
function schemeAndValue(header: string): { scheme: string; value: string } {
  const [scheme = '', value = ''] = header.trim().split(/\s+/, 2);
  return { scheme: scheme.toLowerCase(), value };
}

/** RFC 7617: `user:password`, UTF-8, not form-encoded (unlike a client's credentials at the token endpoint). */
function userCredentials(encoded: string): { username: string; password: string } | undefined {
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded)) return undefined;
  const text = Buffer.from(encoded, 'base64').toString('utf8');
  const colon = text.indexOf(':');
  return colon < 0 ? undefined : { username: text.slice(0, colon), password: text.slice(colon + 1) };
}

/**
 * Authentication of API requests (DESIGN.md §5): HTTP basic with a local user's password, bearer JWTs of the
 * internal provider (`oauth2.server.enabled`) and of external providers (`oidc.jwt.token.authentication.enabled`),
 * or the session cookie of the login page. One hook for all of them, so the bearer check is registered once
 * whichever flags are on; Basic is tried before bearer, as spec 2 orders them. It only says who the caller is
 * (`request.caller`); access.ts says what each route needs. Credentials that are sent but wrong are refused with
 * 401 rather than ignored. With no authentication configured, every caller is anonymous.
 */
export const authenticationPlugin = fp(
  async (app) => {
    const { config, namespace } = app.stratus;
    // Set by the onRequest hook below on every request; null only until it runs.
    app.decorateRequest('caller', null as never);
    const providers = resolveProviders(config, app.log);
    app.decorate('identityProviders', providers);
    const providerKeys = new ProviderKeySets();
    app.decorate('identityProviderKeys', providerKeys);
    // The internal provider exists when the authorization server is on (with its issuer, server.base.url).
    const internal = providers.internal;
    // Every bearer request reads its user, client and authorization: from the informer caches, not the store.
    const directoryKinds = [userKind, oauth2ClientKind, oauth2AuthorizationKind];
    const reads = app.resourceCaches.readingThrough(directoryKinds);
    const directoriesStamp = app.resourceCaches.stampOf(directoryKinds);
    const users = new UserDirectory(reads, namespace);
    const external = config.oidc.jwtTokenAuthenticationEnabled
      ? { keys: providerKeys, users, linkedAccounts: config.linkedAccounts.enabled }
      : undefined;
    // The issuer of the sign-in state: the configuration requires server.base.url for the login page.
    const issuer = internal?.issuer ?? (config.oidc.loginEnabled ? config.server.baseUrl : null);
    const signIn = issuer !== null;
    if (!signIn && !external) {
      app.decorate('auth', undefined);
      app.decorate('authorizationServer', undefined);
      app.addHook('onRequest', (request, _reply, done) => {
        request.caller = ANONYMOUS;
        done();
      });
      return;
    }
    const services = signIn ? await signInServices(app, issuer, internal, users, reads, directoriesStamp) : undefined;
    app.decorate('auth', services);
    app.decorate('authorizationServer', internal && services);
    const bearer: BearerSources = {
      providers,
      internal: internal && services?.context,
      external,
      log: app.log,
      now: () => new Date(),
    };

    const authenticate = async (request: FastifyRequest) => {
      const header = request.headers.authorization;
      if (header === undefined) {
        const signedIn = await services?.session(request);
        if (signedIn) request.caller = callerOf(signedIn.user, 'session');
        return;
      }
      const { scheme, value } = schemeAndValue(header);
      if (scheme === 'basic') {
        const credentials = userCredentials(value);
        const outcome =
          credentials &&
          (await users.signIn(
            credentials.username,
            credentials.password,
            bearer.now(),
            clientAddress(request, config),
          ));
        if (outcome?.throttledForMs !== undefined) throw signInThrottled(outcome.throttledForMs);
        if (!outcome?.user) throw basicChallenge('The username or password is wrong.');
        request.caller = callerOf(outcome.user, 'basic');
        return;
      }
      if (scheme !== 'bearer') throw basicChallenge(`The ${scheme} authorization scheme is not supported.`);
      try {
        if (value.startsWith(OPENEO_BASIC_PREFIX)) {
          // openEO's token from /credentials/basic: a session, found by its hash like the login page's.
          const now = bearer.now();
          const session = await services?.sessions.find(value.slice(OPENEO_BASIC_PREFIX.length), now);
          const user = session && (await activeUser(users, session.spec.principalName, now)).user;
          if (!user) throw new OAuthError('invalid_token', 'the openEO basic token is unknown or expired');
          request.caller = callerOf(user, 'basic');
          return;
        }
        const { token, providerKey } = openEoBearerToken(value);
        const caller = await authenticateAnyBearer(bearer, token, providerKey);
        request.caller = callerOf(caller.user, 'bearer', { clientId: caller.clientId, scopes: caller.scopes });
      } catch (err) {
        throw err instanceof OAuthError ? bearerError(err) : err;
      }
    };
    /** The caller of a bearer token of this server checked a moment ago (core/auth/own-access-tokens.ts), found at once. */
    const rememberedBearer = (header: string) => {
      const { scheme, value } = schemeAndValue(header);
      if (!internal || !services || scheme !== 'bearer' || value.startsWith(OPENEO_BASIC_PREFIX)) return undefined;
      const { token, providerKey } = openEoBearerToken(value);
      const caller = providerKey === undefined ? rememberedCaller(services.context, token, bearer.now()) : undefined;
      return caller && callerOf(caller.user, 'bearer', { clientId: caller.clientId, scopes: caller.scopes });
    };
    // A callback hook: the requests that carry no credentials at all (neither header nor any cookie), most of
    // them, are anonymous without a promise, and so are those with a bearer token remembered from a moment ago.
    app.addHook('onRequest', (request, _reply, done) => {
      request.caller = ANONYMOUS;
      const { headers } = request;
      if (
        request.routeOptions.config?.authentication === false ||
        (headers.authorization === undefined && headers.cookie === undefined)
      )
        return done();
      const remembered = headers.authorization === undefined ? undefined : rememberedBearer(headers.authorization);
      if (remembered) {
        request.caller = remembered;
        return done();
      }
      authenticate(request).then(() => done(), done);
    });
  },
  { name: 'stratus-authentication', dependencies: ['stratus-context'] },
);

/**
 * The sign-in services: the signing key (it signs the login page's sign-in state, and the tokens when the
 * authorization server is on), the directories, and the registrar client when the authorization server is on.
 */
async function signInServices(
  app: FastifyInstance,
  issuer: string,
  internal: InternalProvider | undefined,
  users: UserDirectory,
  reads: Cluster,
  directoriesStamp: () => string | undefined,
): Promise<AuthServices> {
  const { cluster, config, namespace } = app.stratus;
  const keys = await resolveSigningKeys(config.oauth2.keystore, cluster, namespace);
  app.log.info({ kid: keys.kid, source: keys.source }, 'authorization server signing key');
  if (internal) await ensureRegistrarClient(cluster, namespace);
  const context: AuthContext = {
    cluster,
    namespace,
    issuer,
    keys,
    refreshTokenKey: await tokenMacKey(cluster, namespace),
    clients: new ClientDirectory(reads, namespace),
    users,
    authorizations: new AuthorizationStore(cluster, namespace, reads),
    mappingClaim: internal?.mappingClaim ?? 'username',
    now: () => new Date(),
    directoriesStamp,
  };
  const sessions = new Sessions(cluster, namespace);
  const secure = (request: FastifyRequest) => isSecureRequest(request, config);
  return {
    context,
    sessions,
    consents: new Consents(cluster, namespace),
    systemSettings: () => readSystemSettings(cluster, namespace),
    secure,
    session: async (request) => {
      const cookie = readCookie(request, SESSION_COOKIE, secure(request));
      const now = context.now();
      const session = await sessions.find(cookie, now);
      const user = session && (await activeUser(users, session.spec.principalName, now)).user;
      return cookie && session && user ? { cookie, session, user } : undefined;
    },
  };
}
