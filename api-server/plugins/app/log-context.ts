import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { FastifyRequest } from 'fastify';
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
    // Read from the raw request, so that the lines written before any hook runs ("incoming request") carry it too.
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
  return contextOf(raw).xRequestID || randomUUID().replace(/-/g, '');
}

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
