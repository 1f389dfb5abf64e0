/**
 * The one catalogue of API error codes. Each code has one HTTP status and one envelope; `errorBody` is the only
 * place that shapes an error response, so a code answers the same everywhere. `docs/errors.md` lists every code
 * (a test keeps the two in step).
 */
export type Envelope = 'native' | 'validation' | 'read-only' | 'openeo';

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
  UnsupportedMediaType: {
    status: 415,
    envelope: 'native',
    description: 'The body has a media type the route does not accept.',
  },
  ReadOnly: {
    status: 403,
    envelope: 'read-only',
    description: 'The instance is read-only: every write is refused except `POST /result`.',
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
    description: 'A dependency (resource store, cluster API) is unavailable; retry later.',
  },
  CollectionNotFound: {
    status: 404,
    envelope: 'openeo',
    description: 'openEO `/collections/{collection_id}`: no published collection has this id.',
  },
  ProcessNotFound: {
    status: 404,
    envelope: 'openeo',
    description: 'openEO `/processes/{process_id}`: this backend implements no process with this id.',
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

export class HttpError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly items: ValidationItem[];

  constructor(code: ErrorCode, message: string, items: ValidationItem[] = []) {
    super(message);
    this.name = 'HttpError';
    this.code = code;
    this.status = errorCatalogue[code].status;
    this.items = items;
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
  }
}
