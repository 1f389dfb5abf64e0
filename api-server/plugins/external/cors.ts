import cors from '@fastify/cors';
import fp from 'fastify-plugin';

/** openEO: the response headers a browser client may read. */
const CORS_EXPOSED_HEADERS = ['Location', 'OpenEO-Identifier', 'X-Request-ID', 'OpenEO-Costs', 'Link'];

/** What the CORS plugin writes on a request without `Origin`, for answers given past fastify (the `/zarr` fast path). */
export const CORS_HEADERS_WITHOUT_ORIGIN = {
  'access-control-expose-headers': CORS_EXPOSED_HEADERS.join(', '),
  vary: 'Origin',
};

/** `@fastify/cors` with the configured origins (`server.cors.allowed_origins`) and openEO's exposed headers. */
export const corsPlugin = fp(
  async (app) => {
    const origins = app.stratus.config.server.corsAllowedOrigins;
    await app.register(cors, {
      origin: origins.includes('*') ? true : origins,
      methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
      exposedHeaders: CORS_EXPOSED_HEADERS,
      // openEO: OPTIONS answers 204 with the CORS headers on every route, preflight or not.
      strictPreflight: false,
    });
  },
  { name: 'stratus-cors', fastify: '5.x', dependencies: ['stratus-context'] },
);
