/**
 * OAuth 2.0 errors (RFC 6749 §5.2, RFC 6750 §3.1, RFC 7009, RFC 7662, RFC 7591 §3.2.2) as the authorization server's
 * logic raises them, each with the HTTP status of its answer. The API server's error catalogue takes these codes
 * from here and answers each with RFC 6749's body.
 */
export const OAUTH_ERROR_STATUS = {
  invalid_request: 400,
  invalid_client: 401,
  invalid_grant: 400,
  unauthorized_client: 400,
  unsupported_grant_type: 400,
  invalid_scope: 400,
  invalid_token: 401,
  insufficient_scope: 403,
  invalid_redirect_uri: 400,
  invalid_client_metadata: 400,
} as const;

export type OAuthErrorCode = keyof typeof OAUTH_ERROR_STATUS;

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
export const AUTHORIZE_ERROR_CODES = [
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
] as const;

export type AuthorizeErrorCode = (typeof AUTHORIZE_ERROR_CODES)[number];
