import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { ClientAuthenticationError } from '../../../core/auth/clients/authenticate.ts';
import { OAuthError } from '../../../core/auth/errors.ts';
import { isApiError } from '../../../core/cluster/errors.ts';
import { isProcessingError } from '../../../core/processing/errors.ts';
import {
  errorBody,
  HttpError,
  onOpenEoRoute,
  validationFailed,
  type ErrorCode,
  type ValidationItem,
} from '../../errors.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** An openEO route (`markOpenEoRoutes`): its refusals of credentials are said in openEO's codes. */
    openeo?: boolean;
    /** A route of spec 1's native API (`markNativeApiRoutes`): a body that is not JSON is a validation failure. */
    nativeApi?: boolean;
  }
}

/**
 * Marks every route the calling plugin registers as an openEO route, so that an openEO client reads its 401 and
 * 403 as `AuthenticationRequired` and `PermissionsInsufficient` rather than as Stratus's own codes.
 */
export function markOpenEoRoutes(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    route.config = { ...route.config, openeo: true };
  });
}

/**
 * Marks every route the calling plugin registers as one of spec 1's native API, which answers a malformed or empty
 * JSON body with 422 `HTTPValidationError`, as it answers a body that breaks its schema.
 */
export function markNativeApiRoutes(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    route.config = { ...route.config, nativeApi: true };
  });
}

/** The codes of fastify's JSON parser for a body that is not JSON. */
const unparsableJson = new Set(['FST_ERR_CTP_INVALID_JSON_BODY', 'FST_ERR_CTP_EMPTY_JSON_BODY']);

const locationOf: Record<string, string> = { params: 'path', querystring: 'query', body: 'body', headers: 'header' };

function validationItems(error: FastifyError & { validation: unknown[] }): ValidationItem[] {
  const where = locationOf[error.validationContext ?? 'body'] ?? 'body';
  return (error.validation as { instancePath: string; message?: string; keyword: string }[]).map((v) => ({
    loc: [
      where,
      ...v.instancePath
        .split('/')
        .filter(Boolean)
        .map((p) => (/^\d+$/.test(p) ? Number(p) : p)),
    ],
    msg: v.message ?? 'invalid',
    type: v.keyword,
  }));
}

/** Maps fastify's own client errors (bad JSON, wrong media type, body too large) onto the catalogue. */
function fromFastify(error: FastifyError, request: FastifyRequest): HttpError | undefined {
  if (request.routeOptions.config?.nativeApi && error.code !== undefined && unparsableJson.has(error.code))
    return validationFailed(['body'], error.message, 'json_invalid');
  const byStatus: Record<number, ErrorCode> = {
    400: 'BadRequest',
    // The docs' static file server refuses a path that climbs out of its folder (`..`) with 403: no such file.
    403: 'NotFound',
    404: 'NotFound',
    413: 'PayloadTooLarge',
    415: 'UnsupportedMediaType',
  };
  const code = error.statusCode ? byStatus[error.statusCode] : undefined;
  return code ? new HttpError(code, error.message) : undefined;
}

/** An OAuth error of the logic; invalid_client from client authentication with the challenge its 401 needs. */
function fromOAuth(error: OAuthError): HttpError {
  const headers: Record<string, string> =
    error instanceof ClientAuthenticationError ? { 'www-authenticate': 'Basic realm="oauth2"' } : {};
  return new HttpError(error.code, error.message, [], { headers });
}

function sendError(reply: FastifyReply, http: HttpError) {
  return (
    reply
      .status(http.status)
      .headers(http.headers)
      .type('application/json; charset=utf-8')
      // The catalogue shapes every error body: a route's response schema for the status (the OAuth2 envelope of the
      // token endpoint's 400, say) must not turn a body of another envelope, a malformed JSON body's, into a 500.
      .serializer((payload) => JSON.stringify(payload))
      .send(errorBody(http))
  );
}

/**
 * What fastify's router refuses before any route runs (its `frameworkErrors` option): a path with bad
 * percent-encoding, a path parameter past `maxParamLength`, answered from the catalogue.
 */
export function frameworkErrors(error: FastifyError, _request: FastifyRequest, reply: FastifyReply) {
  const http =
    error.code === 'FST_ERR_MAX_PARAM_LENGTH'
      ? new HttpError('UriTooLong', 'A path parameter is longer than 100 characters.')
      : new HttpError(
          'BadRequest',
          error.code === 'FST_ERR_BAD_URL' ? 'The path is not valid percent-encoding.' : error.message,
        );
  return sendError(reply, http);
}

/** A route's path as a pattern of request paths: `:param` is one segment, `*` anything. */
function routePattern(url: string): RegExp {
  const escaped = url
    .split(/(:[A-Za-z0-9_]+|\*)/)
    .map((part) => (part === '*' ? '.*' : part.startsWith(':') ? '[^/]+' : part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${escaped}$`);
}

/**
 * The single error handler, for every envelope: the API's own errors, the processing engine's (openEO's envelope),
 * OAuth 2.0's, the resource store's and fastify's all leave through the catalogue; on an openEO route a refusal of
 * credentials takes openEO's code. 5xx internals stay in the log.
 */
export const errorsPlugin = fp(
  async (app) => {
    app.setErrorHandler((error: FastifyError, request, reply) => {
      let http: HttpError;
      if (error instanceof HttpError) http = error;
      else if (isProcessingError(error)) http = new HttpError(error.code, error.message);
      else if (error instanceof OAuthError) http = fromOAuth(error);
      else if (hasZodFastifySchemaValidationErrors(error)) {
        http = new HttpError('ValidationFailed', 'validation failed', validationItems(error));
      } else if (isApiError(error)) {
        const code: ErrorCode =
          error.code === 404
            ? 'NotFound'
            : error.code === 409
              ? 'Conflict'
              : error.code === 422
                ? 'BadRequest'
                : 'ServiceUnavailable';
        http = new HttpError(
          code,
          code === 'ServiceUnavailable' ? 'The resource store is unavailable.' : error.message,
        );
        if (code === 'ServiceUnavailable') request.log.error({ err: error }, 'resource store failure');
      } else {
        http = fromFastify(error, request) ?? new HttpError('InternalError', 'Internal Server Error');
        if (http.code === 'InternalError') request.log.error({ err: error }, 'unhandled error');
      }
      const openEoCode = request.routeOptions.config?.openeo ? onOpenEoRoute(http.code) : http.code;
      if (openEoCode !== http.code) http = new HttpError(openEoCode, http.message, [], { headers: http.headers });
      return sendError(reply, http);
    });
    // Every route's methods by path pattern, to tell a path that exists with other methods (405) from none (404).
    // Catch-all routes (CORS answers OPTIONS on every path) say nothing about which paths exist.
    const routes: { pattern: RegExp; methods: string[] }[] = [];
    app.addHook('onRoute', (route) => {
      if (route.url === '*' || route.url === '/*') return;
      const methods = Array.isArray(route.method) ? route.method : [route.method];
      routes.push({ pattern: routePattern(route.url), methods });
    });
    app.setNotFoundHandler((request, reply) => {
      const path = request.url.split('?')[0]!;
      const allowed = new Set(routes.filter((r) => r.pattern.test(path)).flatMap((r) => r.methods));
      if (allowed.has('GET')) allowed.add('HEAD');
      // A route of this method matched and found nothing (a missing file, an unknown id): that is a 404.
      if (allowed.size > 0 && !allowed.has(request.method)) {
        allowed.add('OPTIONS');
        const http = new HttpError('MethodNotAllowed', `${request.method} is not allowed on this path.`, [], {
          headers: { allow: [...allowed].sort().join(', ') },
        });
        return sendError(reply, http);
      }
      request.log.debug({ url: request.url }, 'no route');
      return sendError(reply, new HttpError('NotFound', 'Not Found'));
    });
  },
  { name: 'stratus-errors' },
);
