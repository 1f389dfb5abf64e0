import cors, { type FastifyCorsOptions } from '@fastify/cors';
import fp from 'fastify-plugin';
import { ENDPOINT_PATHS } from '../../../core/auth/endpoints.ts';

/** openEO: the response headers a browser client may read. */
const CORS_EXPOSED_HEADERS = ['Location', 'OpenEO-Identifier', 'X-Request-ID', 'OpenEO-Costs', 'Link'];

/** What the CORS plugin writes on a request without `Origin`, for answers given past fastify (the `/zarr` fast path). */
export const CORS_HEADERS_WITHOUT_ORIGIN = {
  'access-control-expose-headers': CORS_EXPOSED_HEADERS.join(', '),
  vary: 'Origin',
};

/**
 * The authorization server's endpoints that a browser-based client (a public client: an openEO web editor, a
 * single-page app) calls from its own origin: discovery, the keys, the token exchange, userinfo, revocation and
 * introspection. They answer every origin whatever `server.cors.allowed_origins` says, as OpenID providers do:
 * their credentials are in the request (a code with its PKCE verifier, a token, a client's own authentication),
 * never the browser's cookies (no `Access-Control-Allow-Credentials`), so the same-origin policy protects nothing
 * there, and a client's origin should not have to be configured twice. The authorization endpoint and the login
 * and consent pages are navigations, not script calls: CORS does not concern them.
 */
export const OPEN_CORS_PATHS: ReadonlySet<string> = new Set([
  ENDPOINT_PATHS.discovery,
  ENDPOINT_PATHS.jwks,
  ENDPOINT_PATHS.token,
  ENDPOINT_PATHS.userinfo,
  ENDPOINT_PATHS.revocation,
  ENDPOINT_PATHS.introspection,
]);

/**
 * `@fastify/cors` with the configured origins (`server.cors.allowed_origins`) and openEO's exposed headers, and
 * every origin for the OAuth 2.0 endpoints of `OPEN_CORS_PATHS`.
 */
export const corsPlugin = fp(
  async (app) => {
    const origins = app.stratus.config.server.corsAllowedOrigins;
    const configured: FastifyCorsOptions = {
      origin: origins.includes('*') ? true : origins,
      methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
      exposedHeaders: CORS_EXPOSED_HEADERS,
      // openEO: OPTIONS answers 204 with the CORS headers on every route, preflight or not.
      strictPreflight: false,
    };
    const open: FastifyCorsOptions = { ...configured, origin: '*' };
    await app.register(cors, {
      delegator: (request, callback) => {
        const path = request.url.split('?', 1)[0]!;
        callback(null, OPEN_CORS_PATHS.has(path) ? open : configured);
      },
    });
  },
  { name: 'stratus-cors', fastify: '5.x', dependencies: ['stratus-context'] },
);
