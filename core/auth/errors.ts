/**
 * OAuth 2.0 errors (RFC 6749 §5.2, RFC 6750 §3.1, RFC 7009, RFC 7662) as the authorization server's logic raises
 * them; the HTTP layer answers each through the error catalogue with its status and RFC 6749 body.
 */
export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'invalid_scope'
  | 'invalid_token'
  | 'insufficient_scope';

export class OAuthError extends Error {
  readonly code: OAuthErrorCode;
  constructor(code: OAuthErrorCode, description: string) {
    super(description);
    this.name = 'OAuthError';
    this.code = code;
  }
}

/**
 * Errors of the authorization endpoint, sent to the client's redirect URI (RFC 6749 §4.1.2.1, OIDC Core §3.1.2.6)
 * rather than answered. `invalid_grant` is among them because spec 2 names it for a request without an S256
 * `code_challenge`.
 */
export type AuthorizeErrorCode =
  | 'invalid_request'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'access_denied'
  | 'unsupported_response_type'
  | 'invalid_scope'
  | 'server_error'
  | 'login_required'
  | 'consent_required'
  | 'request_not_supported'
  | 'request_uri_not_supported';

export const AUTHORIZE_ERROR_CODES: readonly AuthorizeErrorCode[] = [
  'invalid_request',
  'invalid_grant',
  'unauthorized_client',
  'access_denied',
  'unsupported_response_type',
  'invalid_scope',
  'server_error',
  'login_required',
  'consent_required',
  'request_not_supported',
  'request_uri_not_supported',
];
