import { STATUS_CODES } from 'node:http';
import { OAUTH_ERROR_STATUS } from '../core/auth/errors.ts';
import { PROCESSING_ERROR_STATUS, type ProcessingErrorCode } from '../core/processing/errors.ts';

/**
 * The one catalogue of the codes an API answer carries. Each code has one HTTP status and one envelope and is
 * defined once: the API's own codes here, the processing engine's in `core/processing/errors.ts`, OAuth 2.0's in
 * `core/auth/errors.ts`, and this catalogue takes those two over with their envelope. `errorBody` is the only place
 * that shapes an error response, so a code answers the same everywhere. `docs/errors.md` describes every code
 * (tests keep the two in step).
 */
export type Envelope = 'native' | 'validation' | 'read-only' | 'openeo' | 'oauth2' | 'web-message';

interface CatalogueEntry {
  status: number;
  envelope: Envelope;
}

/** A code of the native envelope that the openEO routes answer with an openEO code instead, so clients show it. */
interface NativeEntry extends CatalogueEntry {
  openEo?: OpenEoRouteCode;
}

/** The API's own native codes; `docs/errors.md`, "API errors", says when each is answered. */
const nativeCodes = {
  NotFound: { status: 404, envelope: 'native' },
  MethodNotAllowed: { status: 405, envelope: 'native' },
  ValidationFailed: { status: 422, envelope: 'validation' },
  BadRequest: { status: 400, envelope: 'native' },
  Conflict: { status: 409, envelope: 'native' },
  RangeNotSatisfiable: { status: 416, envelope: 'native' },
  PayloadTooLarge: { status: 413, envelope: 'native' },
  RequestTimeout: { status: 408, envelope: 'native' },
  UriTooLong: { status: 414, envelope: 'native' },
  HeadersTooLarge: { status: 431, envelope: 'native' },
  UnsupportedMediaType: { status: 415, envelope: 'native' },
  ReadOnly: { status: 403, envelope: 'read-only' },
  RefreshFailed: { status: 502, envelope: 'native' },
  ServiceUnavailable: { status: 503, envelope: 'native' },
  Unauthorized: { status: 401, envelope: 'native', openEo: 'AuthenticationRequired' },
  Forbidden: { status: 403, envelope: 'native', openEo: 'PermissionsInsufficient' },
  TooManyRequests: { status: 429, envelope: 'native', openEo: 'SignInThrottled' },
  InternalError: { status: 500, envelope: 'native' },
} as const satisfies Record<string, NativeEntry>;

/**
 * openEO API codes (errors.json) that the openEO routes answer themselves, beside the engine's; `SignInThrottled`
 * is Stratus's own, as openEO's catalogue has no code for a throttle.
 */
const openEoRouteCodes = {
  JobNotFound: { status: 404, envelope: 'openeo' },
  JobLocked: { status: 400, envelope: 'openeo' },
  JobNotFinished: { status: 400, envelope: 'openeo' },
  FileNotFound: { status: 404, envelope: 'openeo' },
  ProcessNotFound: { status: 404, envelope: 'openeo' },
  PaginationInvalid: { status: 400, envelope: 'openeo' },
  AuthenticationRequired: { status: 401, envelope: 'openeo' },
  PermissionsInsufficient: { status: 403, envelope: 'openeo' },
  SignInThrottled: { status: 429, envelope: 'openeo' },
} as const satisfies Record<string, CatalogueEntry>;

type OpenEoRouteCode = keyof typeof openEoRouteCodes;

/** The platform's WebMessage codes (DESIGN.md §5) of the administration APIs. */
const webMessageCodes = {
  E4000: { status: 409, envelope: 'web-message' },
  InvalidSystemSetting: { status: 409, envelope: 'web-message' },
  PatchRefused: { status: 409, envelope: 'web-message' },
  PatchTestFailed: { status: 409, envelope: 'web-message' },
} as const satisfies Record<string, CatalogueEntry>;

/** Codes whose status is defined elsewhere, answered in one envelope. */
function inEnvelope<C extends string>(
  statuses: Readonly<Record<C, number>>,
  envelope: Envelope,
): Record<C, CatalogueEntry> {
  return Object.fromEntries(Object.entries(statuses).map(([code, status]) => [code, { status, envelope }])) as Record<
    C,
    CatalogueEntry
  >;
}

/**
 * Every part of the catalogue by where its codes are defined; a test checks that no code is in two parts and that
 * `docs/errors.md` lists each with its status.
 */
export const catalogueParts = {
  native: nativeCodes,
  'openEO routes': openEoRouteCodes,
  'processing engine': inEnvelope(PROCESSING_ERROR_STATUS, 'openeo'),
  OAuth2: inEnvelope(OAUTH_ERROR_STATUS, 'oauth2'),
  WebMessage: webMessageCodes,
};

/** The API server's own codes, which `docs/errors.md` lists under "API errors". */
export const errorCatalogue = {
  ...catalogueParts.native,
  ...catalogueParts['openEO routes'],
  ...catalogueParts.OAuth2,
  ...catalogueParts.WebMessage,
};

/** Every code an error answer carries: the API server's own and the processing engine's. */
export type ErrorCode = keyof typeof errorCatalogue | ProcessingErrorCode;

function entryOf(code: ErrorCode): NativeEntry {
  return code in errorCatalogue
    ? errorCatalogue[code as keyof typeof errorCatalogue]
    : catalogueParts['processing engine'][code as ProcessingErrorCode];
}

/** The code `code` answers with on an openEO route: a refusal of credentials in openEO's code, so clients show it. */
export function onOpenEoRoute(code: ErrorCode): ErrorCode {
  return entryOf(code).openEo ?? code;
}

export interface ValidationItem {
  loc: (string | number)[];
  msg: string;
  type: string;
}

/**
 * A validation failure that a handler finds rather than the route's schema (a period that does not parse, a
 * `limit` out of range), answered in the same 422 `HTTPValidationError` body as the schema's.
 */
export function validationFailed(loc: ValidationItem['loc'], msg: string, type = 'invalid_value'): HttpError {
  return new HttpError('ValidationFailed', msg, [{ loc, msg, type }]);
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
    this.status = entryOf(code).status;
    this.items = items;
    this.headers = extras.headers ?? {};
    this.errorReports = extras.errorReports;
  }
}

export function errorBody(error: HttpError): Record<string, unknown> {
  const envelope: Envelope = entryOf(error.code).envelope;
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
