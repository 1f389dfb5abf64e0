import type { FastifyServerOptions } from 'fastify';
import fp from 'fastify-plugin';
import type { Logger } from 'pino';
import { RequestLines, requestIdOf, requestLogger } from './log-context.ts';

/**
 * The server options that give every request its id (`reqId`), put spec 3's context (`xRequestID`,
 * `sessionId`) in each of its log lines, and record it in one line once answered (plugins/app/log-context.ts).
 */
export const requestIdOptions = {
  genReqId: requestIdOf,
  logController: new RequestLines(),
  childLoggerFactory: ((logger, bindings, childOptions, raw) =>
    requestLogger(logger as Logger, raw, bindings, childOptions)) satisfies FastifyServerOptions['childLoggerFactory'],
};

/** Every answer carries its request id in `X-Request-ID`. */
export const requestIdPlugin = fp(
  async (app) => {
    // A callback hook, not an async one: no promise on every answer.
    app.addHook('onSend', (request, reply, payload, done) => {
      reply.header('x-request-id', request.id);
      done(null, payload);
    });
  },
  { name: 'stratus-request-id', fastify: '5.x' },
);
