import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { LogController, type FastifyServerOptions } from 'fastify';
import fp from 'fastify-plugin';
import type { Logger } from 'pino';

const REQUEST_ID = /^[A-Za-z0-9]{1,64}$/;
/** Spec 3 names the request id of a log line `xRequestID`. */
const REQUEST_ID_LOG_LABEL = 'xRequestID';

/** Spec 3: the request id is the client's X-Request-ID when alphanumeric, else a fresh one. */
export function requestIdOf(req: IncomingMessage): string {
  const sent = req.headers['x-request-id'];
  return typeof sent === 'string' && REQUEST_ID.test(sent) ? sent : randomUUID().replace(/-/g, '');
}

/** The logger of one request: its id, and the session (none yet). */
export function requestLogger(logger: Logger, requestId: string): Logger {
  return logger.child({ [REQUEST_ID_LOG_LABEL]: requestId, sessionId: '' });
}

/** The server options that give every request its id and put it, with the session, in each of its log lines. */
export const requestIdOptions = {
  genReqId: requestIdOf,
  logController: new LogController({ requestIdLogLabel: REQUEST_ID_LOG_LABEL }),
  childLoggerFactory: ((logger, bindings, childOptions) =>
    logger.child({ ...bindings, sessionId: '' }, childOptions)) satisfies FastifyServerOptions['childLoggerFactory'],
};

/** Every answer carries its request id in `X-Request-ID`. */
export const requestIdPlugin = fp(
  async (app) => {
    app.addHook('onSend', async (request, reply) => {
      reply.header('x-request-id', request.id);
    });
  },
  { name: 'stratus-request-id', fastify: '5.x' },
);
