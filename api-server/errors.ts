import { STATUS_CODES } from 'node:http';

/**
 * The one catalogue of API error codes. Each code has one HTTP status and one envelope; `errorBody` is the only
 * place that shapes an error response, so a code answers the same everywhere. `docs/errors.md` lists every code
 * (a test keeps the two in step).
 */
export type Envelope = 'native' | 'validation' | 'read-only' | 'openeo' | 'oauth2' | 'web-message';

export const errorCatalogue = {
  NotFound: { status: 404, envelope: 'native', description: 'The path or the object it names does not exist.' },
  MethodNotAllowed: { status: 405, envelope: 'native', description: 'The path exists but not with this method.' },
  ValidationFailed: {
    status: 422,
    envelope: 'validation',
    description: 'A path parameter, query parameter or body failed validation; `detail` lists each failure.',
  },
  BadRequest: { status: 400, envelope: 'native', description: 'The request is well-formed but cannot be done.' },
  Conflict: {
    status: 409,
    envelope: 'native',
    description: 'The request conflicts with the stored state (a concurrent change, an existing object, a reused key).',
  },
  RangeNotSatisfiable: {
    status: 416,
    envelope: 'native',
    description: 'The Range header asks for bytes past the end of the file.',
  },
  PayloadTooLarge: { status: 413, envelope: 'native', description: 'The body exceeds the size limit.' },
  RequestTimeout: {
    status: 408,
    envelope: 'native',
    description: 'The request line, headers or body did not arrive within the configured time.',
  },
  UriTooLong: { status: 414, envelope: 'native', description: 'A path parameter is longer than 100 characters.' },
  HeadersTooLarge: {
    status: 431,
    envelope: 'native',
    description: 'The request headers exceed the size limit.',
  },
  UnsupportedMediaType: {
    status: 415,
    envelope: 'native',
    description: 'The body has a media type the route does not accept.',
  },
  ReadOnly: {
    status: 403,
    envelope: 'read-only',
    description: 'The instance is read-only: every write is refused except `POST /result` and signing in.',
  },
  RefreshFailed: {
    status: 502,
    envelope: 'native',
    description:
      'A synchronous feature refresh failed upstream (no answer, an error, data that cannot be stored); the previous collection stays served.',
  },
  ServiceUnavailable: {
    status: 503,
    envelope: 'native',
    description:
      'A dependency (resource store, cluster API) is unavailable, or the server is shutting down; retry later.',
  },
  CollectionNotFound: {
    status: 404,
    envelope: 'openeo',
    description: 'openEO `/collections/{collection_id}`: no published collection has this id.',
  },
  JobNotFound: {
    status: 404,
    envelope: 'openeo',
    description: 'openEO `/jobs/{job_id}`: no batch job has this id.',
  },
  JobLocked: {
    status: 400,
    envelope: 'openeo',
    description: 'openEO: a queued or running batch job cannot be changed or deleted; cancel it first.',
  },
  JobNotFinished: {
    status: 400,
    envelope: 'openeo',
    description: 'openEO `/jobs/{job_id}/results`: the job has not finished (created, queued, running or canceled).',
  },
  FileNotFound: {
    status: 404,
    envelope: 'openeo',
    description: 'openEO `/jobs/{job_id}/results/{filename}`: the finished job has no result file of this name.',
  },
  ProcessNotFound: {
    status: 404,
    envelope: 'openeo',
    description: 'openEO `/processes/{process_id}`: this backend implements no process with this id.',
  },
  PaginationInvalid: {
    status: 400,
    envelope: 'openeo',
    description: 'openEO `/collections`, `/jobs`, `/process_graphs`: `limit` or the continuation `token` is invalid.',
  },
  AuthenticationRequired: {
    status: 401,
    envelope: 'openeo',
    description:
      "openEO routes: what `Unauthorized` is elsewhere (no or wrong credentials for a route that needs a signed-in user), in openEO's code; with its `WWW-Authenticate` challenge.",
  },
  PermissionsInsufficient: {
    status: 403,
    envelope: 'openeo',
    description:
      "openEO routes: what `Forbidden` is elsewhere (the signed-in user lacks the authority the route needs), in openEO's code.",
  },
  Unauthorized: {
    status: 401,
    envelope: 'native',
    description:
      'Credentials were sent but are wrong (HTTP basic), or none were sent to a route that needs a signed-in user; the response carries a `WWW-Authenticate` challenge.',
  },
  Forbidden: {
    status: 403,
    envelope: 'native',
    description:
      'The request is refused: the signed-in user lacks the authority the route needs, or a form came without its CSRF token.',
  },
  TooManyRequests: {
    status: 429,
    envelope: 'native',
    description:
      'Too many failed password sign-ins for this account or from this address (HTTP basic); `Retry-After` says when to try again.',
  },
  SignInThrottled: {
    status: 429,
    envelope: 'openeo',
    description: "openEO routes: what `TooManyRequests` is elsewhere, in openEO's envelope; with its `Retry-After`.",
  },
  invalid_request: {
    status: 400,
    envelope: 'oauth2',
    description:
      'OAuth2: a parameter is missing, repeated or malformed, or the client used two authentication methods.',
  },
  invalid_client: {
    status: 401,
    envelope: 'oauth2',
    description:
      'OAuth2: client authentication failed (unknown client, a client that breaks the client rules, wrong secret, bad or replayed assertion).',
  },
  invalid_grant: {
    status: 400,
    envelope: 'oauth2',
    description:
      'OAuth2: the code or refresh token is invalid, expired, used or revoked, or the PKCE verifier does not match.',
  },
  unauthorized_client: {
    status: 400,
    envelope: 'oauth2',
    description: 'OAuth2: the client may not use this grant type.',
  },
  unsupported_grant_type: { status: 400, envelope: 'oauth2', description: 'OAuth2: the grant type is not supported.' },
  invalid_scope: { status: 400, envelope: 'oauth2', description: 'OAuth2: a scope is unknown or not allowed.' },
  invalid_token: {
    status: 401,
    envelope: 'oauth2',
    description:
      'A bearer token is invalid, expired or revoked; the response carries a `WWW-Authenticate: Bearer` challenge.',
  },
  insufficient_scope: {
    status: 403,
    envelope: 'oauth2',
    description: 'The bearer token lacks a scope the endpoint needs (`openid` for userinfo).',
  },
  invalid_redirect_uri: {
    status: 400,
    envelope: 'oauth2',
    description: 'RFC 7591: a redirect URI of a registration is malformed or not on the device enrolment allow-list.',
  },
  invalid_client_metadata: {
    status: 400,
    envelope: 'oauth2',
    description:
      'RFC 7591: the registration metadata is refused (no inline `jwks`, a `jwks_uri`, another authentication method or grant type, a private or weak key).',
  },
  E4000: {
    status: 409,
    envelope: 'web-message',
    description: 'An OAuth2 client failed validation (spec 2); `response.errorReports` lists each failure.',
  },
  InvalidSystemSetting: {
    status: 409,
    envelope: 'web-message',
    description:
      'A system setting written through `/api/systemSettings` is unknown or its value breaks its rule; `response.errorReports` lists each problem, nothing is changed.',
  },
  PatchRefused: {
    status: 409,
    envelope: 'web-message',
    description:
      'A JSON Patch of a Program or TrackedEntityType that is malformed or does more than replace, add or test `/enableChangeLog` with a boolean; `response.errorReports` lists each problem, nothing is changed.',
  },
  PatchTestFailed: {
    status: 409,
    envelope: 'web-message',
    description:
      'A `test` operation of a JSON Patch of a Program or TrackedEntityType did not match the stored value; nothing is changed.',
  },
  InternalError: {
    status: 500,
    envelope: 'native',
    description: 'An unexpected failure; details are in the server log under the request id, never in the body.',
  },
} as const satisfies Record<string, { status: number; envelope: Envelope; description: string }>;

export type ErrorCode = keyof typeof errorCatalogue;

export interface ValidationItem {
  loc: (string | number)[];
  msg: string;
  type: string;
}

/** One failure in a WebMessage body (DESIGN.md §5). */
export interface ErrorReport {
  message: string;
  errorCode: string;
  errorProperty?: string;
}

export interface HttpErrorExtras {
  /** Response headers the error needs, e.g. a `WWW-Authenticate` challenge. */
  headers?: Record<string, string>;
  /** The WebMessage envelope's error reports; one report of the message when absent. */
  errorReports?: ErrorReport[];
}

export class HttpError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly items: ValidationItem[];
  readonly headers: Record<string, string>;
  readonly errorReports: ErrorReport[] | undefined;

  constructor(code: ErrorCode, message: string, items: ValidationItem[] = [], extras: HttpErrorExtras = {}) {
    super(message);
    this.name = 'HttpError';
    this.code = code;
    this.status = errorCatalogue[code].status;
    this.items = items;
    this.headers = extras.headers ?? {};
    this.errorReports = extras.errorReports;
  }
}

export function errorBody(error: HttpError): Record<string, unknown> {
  const envelope: Envelope = errorCatalogue[error.code].envelope;
  switch (envelope) {
    case 'validation':
      return { detail: error.items };
    case 'read-only':
      return { id: 'read-only', code: 'PermissionsInsufficient', message: error.message, detail: error.message };
    case 'openeo':
      return { id: error.code, code: error.code, message: error.message, links: [] };
    case 'native':
      return { detail: error.message };
    case 'oauth2':
      return { error: error.code, error_description: error.message };
    case 'web-message':
      return {
        httpStatus: STATUS_CODES[error.status],
        httpStatusCode: error.status,
        status: 'ERROR',
        message: error.message,
        response: { errorReports: error.errorReports ?? [{ message: error.message, errorCode: error.code }] },
      };
  }
}
