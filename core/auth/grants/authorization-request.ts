import type { OAuth2Client } from '../../resources/oauth2-client/schema.ts';
import type { ClientDirectory } from '../clients/directory.ts';
import { requiresProofKey } from '../clients/rules.ts';
import type { AuthorizeErrorCode } from '../errors.ts';
import { isValidS256Challenge } from '../pkce.ts';
import { isRegisteredRedirectUri } from '../redirect-uri.ts';

/**
 * Checking an authorization request (RFC 6749 §4.1.1, RFC 7636, OIDC Core §3.1.2.1). Until the client and its
 * redirect URI are known good, a refusal is shown to the user and never redirected (no open redirect through an
 * unregistered URI); after that, refusals go to the client's redirect URI. The client directory gives only clients
 * that keep the client rules, so every registered redirect URI is one that may be used (a custom scheme only on
 * the allow-list).
 */
export const SUPPORTED_SCOPES = ['openid', 'profile', 'username', 'email'] as const;

/**
 * Scopes a request may name that are ignored: RFC 6749 §3.3 lets the server grant less than asked, and the token
 * response's `scope` says what was granted. `offline_access` (OIDC Core §11) asks for a refresh token, which every
 * client with the `refresh_token` grant gets whether it asks or not (a client without the grant gets none), so
 * the scope would change nothing; openEO's Web Editor asks for it whenever its default client has that grant
 * (js-client's `login(options, true)`), and refusing it would refuse the sign-in.
 */
export const IGNORED_SCOPES: readonly string[] = ['offline_access'];

/**
 * The scopes of a `scope` parameter (space-separated, RFC 6749 §3.3), each once, without the ignored ones;
 * undefined when none remain, so the caller applies its default.
 */
export function requestedScopes(scope: string | undefined): string[] | undefined {
  const scopes = [...new Set(scope?.split(' ').filter((s) => s !== '' && !IGNORED_SCOPES.includes(s)))];
  return scopes.length > 0 ? scopes : undefined;
}
const MAX_PARAMETER_LENGTH = 2048;

export type Prompt = 'none' | 'login' | 'consent';

export interface AuthorizationRequest {
  client: OAuth2Client;
  redirectUri: string;
  state?: string;
  scopes: string[];
  /** Absent only for a client stored without PKCE that sent no challenge. */
  codeChallenge?: string;
  nonce?: string;
  prompts: Prompt[];
}

export type AuthorizationRequestCheck =
  | { ok: true; request: AuthorizationRequest }
  /** Shown to the user: the client or the redirect URI cannot be trusted with a redirect. */
  | { ok: false; redirect: false; description: string }
  | {
      ok: false;
      redirect: true;
      redirectUri: string;
      state?: string;
      error: AuthorizeErrorCode;
      description: string;
    };

/** Request parameters as they arrived: a parameter given twice is an array, which RFC 6749 §3.1 forbids. */
export type RawParameters = Record<string, string | string[] | undefined>;

export async function checkAuthorizationRequest(
  params: RawParameters,
  clients: ClientDirectory,
): Promise<AuthorizationRequestCheck> {
  const single = (name: string): string | undefined => {
    const value = params[name];
    return typeof value === 'string' ? value : undefined;
  };
  const clientId = single('client_id');
  if (!clientId) return { ok: false, redirect: false, description: 'The request names no client (client_id).' };
  const lookup = await clients.lookup(clientId);
  if (!lookup.found)
    return {
      ok: false,
      redirect: false,
      description:
        lookup.why === 'unknown'
          ? 'The client is not registered.'
          : 'The client’s registration breaks the client rules; an administrator must correct it.',
    };
  const { client } = lookup;
  const redirectUri = single('redirect_uri');
  if (!redirectUri) return { ok: false, redirect: false, description: 'The request has no redirect_uri.' };
  if (!isRegisteredRedirectUri(redirectUri, client.spec.redirectUris))
    return { ok: false, redirect: false, description: 'The redirect_uri is not registered for this client.' };

  const state = single('state');
  const refuse = (error: AuthorizeErrorCode, description: string): AuthorizationRequestCheck => ({
    ok: false,
    redirect: true,
    redirectUri,
    ...(state !== undefined ? { state } : {}),
    error,
    description,
  });
  const repeated = Object.entries(params).find(([, value]) => Array.isArray(value));
  if (repeated) return refuse('invalid_request', `The parameter ${repeated[0]} is given more than once.`);
  const tooLong = Object.entries(params).find(
    ([, value]) => typeof value === 'string' && value.length > MAX_PARAMETER_LENGTH,
  );
  if (tooLong) return refuse('invalid_request', `The parameter ${tooLong[0]} is too long.`);
  if (params.request !== undefined) return refuse('request_not_supported', 'Request objects are not supported.');
  if (params.request_uri !== undefined) return refuse('request_uri_not_supported', 'request_uri is not supported.');
  if (single('response_type') !== 'code')
    return refuse('unsupported_response_type', 'Only the authorization code flow (response_type=code) is supported.');
  const responseMode = single('response_mode');
  if (responseMode !== undefined && responseMode !== 'query')
    return refuse('invalid_request', 'Only response_mode=query is supported.');
  if (!client.spec.authorizationGrantTypes.includes('authorization_code'))
    return refuse('unauthorized_client', 'The client may not use the authorization code grant.');

  // Spec 2: a request without an S256 challenge fails with invalid_grant; plain counts as no challenge. A client
  // stored without PKCE keeps its stored setting: it may send none, but a challenge it sends is held to S256.
  const challenge = single('code_challenge');
  const withoutProofKey = !challenge && single('code_challenge_method') === undefined && !requiresProofKey(client);
  if (!challenge && !withoutProofKey) return refuse('invalid_grant', 'code_challenge is required (PKCE with S256).');
  if (challenge && single('code_challenge_method') !== 'S256')
    return refuse('invalid_grant', 'code_challenge_method must be S256; plain is not accepted.');
  if (challenge && !isValidS256Challenge(challenge))
    return refuse('invalid_grant', 'code_challenge must be 43 base64url characters (an S256 challenge).');

  const scopes = requestedScopes(single('scope')) ?? [...client.spec.scopes];
  const unknown = scopes.filter(
    (s) => !(SUPPORTED_SCOPES as readonly string[]).includes(s) || !(client.spec.scopes as string[]).includes(s),
  );
  if (unknown.length > 0) return refuse('invalid_scope', `The client may not request: ${unknown.join(', ')}.`);

  const prompts = (single('prompt') ?? '').split(' ').filter(Boolean);
  const badPrompt = prompts.find((p) => !['none', 'login', 'consent'].includes(p));
  if (badPrompt) return refuse('invalid_request', `prompt=${badPrompt} is not supported.`);
  if (prompts.includes('none') && prompts.length > 1)
    return refuse('invalid_request', 'prompt=none cannot be combined with other values.');

  const nonce = single('nonce');
  return {
    ok: true,
    request: {
      client,
      redirectUri,
      ...(state !== undefined ? { state } : {}),
      scopes,
      ...(challenge ? { codeChallenge: challenge } : {}),
      ...(nonce !== undefined ? { nonce } : {}),
      prompts: prompts as Prompt[],
    },
  };
}
