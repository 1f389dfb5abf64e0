import { randomBytes } from 'node:crypto';
import { IncomingMessage } from 'node:http';
import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { Bindings, ChildLoggerOptions, Logger } from 'pino';
import { sessionLogId, xRequestIdOf, type LogContext } from '../../../core/logging/context.ts';
import { rawSessionCookie } from './authentication/cookies.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /**
     * The request's spec 3 context: `xRequestID` as the client sent it (or empty) and `sessionId`, the hash of
     * the session cookie it carries (or empty; a sign-in names its new session with `setLogSession`). Every line of the request carries both, and a
     * run the request starts records them (`startRun`).
     */
    readonly logContext: LogContext;
  }
}

/** Per request: made when fastify makes the request's logger, before any hook runs. */
const contexts = new WeakMap<IncomingMessage, LogContext>();

function contextOf(raw: IncomingMessage): LogContext {
  let context = contexts.get(raw);
  if (!context) {
    // Read from the raw request, so that the lines written before any hook runs (a 404, a body parser's error) carry
    // it too.
    const session = rawSessionCookie(raw);
    context = {
      xRequestID: xRequestIdOf(raw.headers['x-request-id']),
      sessionId: session ? sessionLogId(session) : '',
    };
    contexts.set(raw, context);
  }
  return context;
}

/**
 * The request's id, `reqId` in its lines and `X-Request-ID` in its response: the client's alphanumeric
 * `X-Request-ID` when it sent one, else a fresh one, so that every request can be found (DESIGN.md §6).
 */
export function requestIdOf(raw: IncomingMessage): string {
  // The header alone, not the whole context: a request that writes no line needs no session hash.
  return (
    xRequestIdOf(raw.headers['x-request-id']) ||
    `${PROCESS_ID_PREFIX}${(++requestCount).toString(16).padStart(16, '0')}`
  );
}

/**
 * Generated ids are 32 hex digits: 16 random ones drawn once per process, then a count. They only need to be
 * unique across the replicas' lines, not unpredictable, and a count costs nothing next to a random UUID per request.
 */
const PROCESS_ID_PREFIX = randomBytes(8).toString('hex');
let requestCount = 0;

/**
 * The logger of one request: `reqId`, `xRequestID`, and `sessionId` read when each line is written, since the
 * session is known only once a later hook has authenticated the request.
 */
export function requestLogger(
  logger: Logger,
  raw: IncomingMessage,
  bindings: Bindings,
  options?: ChildLoggerOptions,
): Logger {
  const context = contextOf(raw);
  return logger.child(
    { ...bindings, xRequestID: context.xRequestID },
    { ...options, formatters: { log: (line) => ({ ...line, sessionId: context.sessionId }) } },
  );
}

/**
 * Names the request's session in its log lines from now on, hashed (`sessionLogId`): a sign-in calls it once it has
 * opened a session, whose cookie the request did not carry.
 */
export function setLogSession(request: FastifyRequest, session: string): void {
  contextOf(request.raw).sessionId = sessionLogId(session);
}

/**
 * The one line that records a request, written once it is answered, as an access log line is: the request
 * (`req`: method, url, host, remote address), its status (`res.statusCode`) and `responseTime` (ms). Both paths
 * write it, fastify's (`RequestLines`) and the `/zarr` fast path, so that every answered request has the same line.
 */
export function logRequestCompleted(
  log: Logger,
  request: FastifyRequest | IncomingMessage,
  reply: FastifyReply | { statusCode: number },
  responseTime: number,
  error?: Error | null,
): void {
  // fastify's `req` serializer reads `host` and `ip`, which a bare request has not: named as fastify names them
  // (without trustProxy, the Host header and the socket's address).
  const req =
    request instanceof IncomingMessage
      ? {
          method: request.method,
          url: request.url,
          headers: request.headers,
          host: request.headers.host,
          ip: request.socket.remoteAddress,
          socket: request.socket,
        }
      : request;
  if (error) log.error({ req, res: reply, err: error, responseTime }, 'request errored');
  else log.info({ req, res: reply, responseTime }, 'request completed');
}

/**
 * One line per request instead of fastify's two ("incoming request" at arrival, "request completed" at the end):
 * each line costs a write, and the second line said everything the first did but the request's headers. The other
 * lines fastify writes for a request (a 5xx with its error, a stream that failed) stay as they are.
 */
export class RequestLines extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    logRequestCompleted(reply.log as Logger, request, reply, reply.elapsedTime, error);
  }
}

export const logContextPlugin = fp(
  async (app) => {
    app.decorateRequest('logContext', {
      getter(this: FastifyRequest) {
        return contextOf(this.raw);
      },
    });
  },
  { name: 'stratus-log-context' },
);
