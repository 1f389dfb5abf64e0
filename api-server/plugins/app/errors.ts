import type { FastifyError } from 'fastify';
import fp from 'fastify-plugin';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { isApiError } from '../../../core/cluster/errors.ts';
import { errorBody, HttpError, type ErrorCode, type ValidationItem } from '../../errors.ts';

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
function fromFastify(error: FastifyError): HttpError | undefined {
  const byStatus: Record<number, ErrorCode> = {
    400: 'BadRequest',
    404: 'NotFound',
    413: 'PayloadTooLarge',
    415: 'UnsupportedMediaType',
  };
  const code = error.statusCode ? byStatus[error.statusCode] : undefined;
  return code ? new HttpError(code, error.message) : undefined;
}

/** The single error handler: every failure leaves through the catalogue, and 5xx internals stay in the log. */
export const errorsPlugin = fp(
  async (app) => {
    app.setErrorHandler((error: FastifyError, request, reply) => {
      let http: HttpError;
      if (error instanceof HttpError) http = error;
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
        http = fromFastify(error) ?? new HttpError('InternalError', 'Internal Server Error');
        if (http.code === 'InternalError') request.log.error({ err: error }, 'unhandled error');
      }
      return reply.status(http.status).type('application/json; charset=utf-8').send(errorBody(http));
    });
    app.setNotFoundHandler((request, reply) => {
      const http = new HttpError('NotFound', 'Not Found');
      request.log.debug({ url: request.url }, 'no route');
      return reply.status(http.status).send(errorBody(http));
    });
  },
  { name: 'stratus-errors' },
);
