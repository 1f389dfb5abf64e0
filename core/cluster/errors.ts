/**
 * Errors of the Cluster port, shaped after Kubernetes `Status` failures so that both adapters
 * (embedded and Kubernetes) report the same reason and HTTP code for the same situation.
 */
export type ApiErrorReason =
  | 'NotFound'
  | 'AlreadyExists'
  | 'Conflict'
  | 'Invalid'
  | 'BadRequest'
  | 'Gone'
  | 'Forbidden'
  | 'MethodNotAllowed'
  | 'UnsupportedMediaType'
  | 'InternalError';

const codeOf: Record<ApiErrorReason, number> = {
  NotFound: 404,
  AlreadyExists: 409,
  Conflict: 409,
  Invalid: 422,
  BadRequest: 400,
  Gone: 410,
  Forbidden: 403,
  MethodNotAllowed: 405,
  UnsupportedMediaType: 415,
  InternalError: 500,
};

export interface FieldCause {
  /** JSON path of the offending field, e.g. `spec.period.start` */
  field: string;
  message: string;
}

export class ApiError extends Error {
  readonly reason: ApiErrorReason;
  readonly code: number;
  readonly causes: FieldCause[];

  constructor(reason: ApiErrorReason, message: string, causes: FieldCause[] = []) {
    super(message);
    this.name = 'ApiError';
    this.reason = reason;
    this.code = codeOf[reason];
    this.causes = causes;
  }
}

export function isApiError(err: unknown, reason?: ApiErrorReason): err is ApiError {
  return err instanceof ApiError && (reason === undefined || err.reason === reason);
}

/**
 * A failure that says nothing about the request: the API server (or a proxy before it) answered 5xx, the
 * connection broke, or a watch went silent past its deadline. Anything else (refused, invalid, gone) would fail
 * again.
 */
export function isRetriable(err: unknown): boolean {
  return !(err instanceof ApiError) || err.reason === 'InternalError';
}
