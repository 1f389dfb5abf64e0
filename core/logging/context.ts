import { createHash } from 'node:crypto';

/**
 * The context values of spec 3 that a line carries: `xRequestID`, the alphanumeric `X-Request-ID` the client
 * sent (empty when it sent none or another), and `sessionId`, the hashed id of the caller's session (empty
 * without one). A request's lines carry them, and so do the lines of the runs it starts.
 */
export interface LogContext {
  xRequestID: string;
  sessionId: string;
}

export const emptyLogContext = (): LogContext => ({ xRequestID: '', sessionId: '' });

/** Spec 3: the header counts when alphanumeric. The length bound keeps a line and an annotation small. */
const REQUEST_ID = /^[A-Za-z0-9]{1,64}$/;
const SESSION_ID = /^[a-f0-9]{32}$/;

/** `xRequestID` from the `X-Request-ID` header: the value when alphanumeric, else empty. */
export function xRequestIdOf(header: string | string[] | undefined): string {
  return typeof header === 'string' && REQUEST_ID.test(header) ? header : '';
}

/**
 * The `sessionId` of a session: a digest of the value that identifies it (its cookie), so that a log line never
 * holds what would let its reader take the session over (DESIGN.md §5).
 */
export function sessionLogId(session: string): string {
  return createHash('sha256').update(session).digest('hex').slice(0, 32);
}

/** Where a run keeps the context of the request that started it, so that its operator and worker lines carry it. */
export const CONTEXT_ANNOTATIONS = {
  xRequestID: 'climate.stratus.dev/x-request-id',
  sessionId: 'climate.stratus.dev/session-id',
} as const;

/** The annotations that record `context` on a run: only the values that are set. */
export function contextAnnotations(context: LogContext): Record<string, string> {
  const annotations: Record<string, string> = {};
  if (context.xRequestID) annotations[CONTEXT_ANNOTATIONS.xRequestID] = context.xRequestID;
  if (context.sessionId) annotations[CONTEXT_ANNOTATIONS.sessionId] = context.sessionId;
  return annotations;
}

/**
 * The context recorded on a run. Annotations can be written by anyone who may edit the run, so a value that is
 * not of the form Stratus writes counts as absent.
 */
export function contextOf(object: { metadata: object }): LogContext {
  const annotations = (object.metadata as { annotations?: Record<string, string> }).annotations ?? {};
  const sessionId = annotations[CONTEXT_ANNOTATIONS.sessionId] ?? '';
  return {
    xRequestID: xRequestIdOf(annotations[CONTEXT_ANNOTATIONS.xRequestID]),
    sessionId: SESSION_ID.test(sessionId) ? sessionId : '',
  };
}
