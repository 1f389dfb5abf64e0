import { randomUUID } from 'node:crypto';
import { importJWK, type JWK } from 'jose';
import { API_VERSION } from '../../resources/kind.ts';
import {
  DYNAMIC_REGISTRATION,
  ENROLLED_BY_ANNOTATION,
  oauth2ClientKind,
  REGISTRATION_LABEL,
  type OAuth2Client,
} from '../../resources/oauth2-client/schema.ts';
import { ASSERTION_ALGORITHMS } from '../clients/authenticate.ts';
import { TOKEN_SETTING_KEYS } from '../clients/token-settings.ts';
import type { AuthContext } from '../context.ts';
import { redirectUriRefusal } from '../redirect-uri.ts';

/**
 * Dynamic client registration (RFC 7591) as spec 2 narrows it: a device registers itself as a `private_key_jwt`
 * client with its public keys inline (`jwks`; `jwks_uri` is refused, so the server never fetches a URL a device
 * names), redirect URIs on the enrolment allow-list, the scopes `openid profile username` whatever it asks,
 * no consent screen, S256 PKCE, and refresh-token rotation with the configured refresh-token lifetime.
 */
export const DCR_SCOPES = ['openid', 'profile', 'username'] as const;
const DCR_GRANT_TYPES = ['authorization_code', 'refresh_token'] as const;
const MAX_KEYS = 10;
const MAX_REDIRECT_URIS = 10;
const MIN_RSA_BITS = 2048;
/** JWK members that only a private or symmetric key has: a device must never send them. */
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'];

/** RFC 7591 §3.2.2 errors. */
export class RegistrationError extends Error {
  readonly code: 'invalid_redirect_uri' | 'invalid_client_metadata';
  constructor(code: RegistrationError['code'], description: string) {
    super(description);
    this.name = 'RegistrationError';
    this.code = code;
  }
}

export interface ClientMetadata {
  client_id: string;
  client_id_issued_at: number;
  client_name?: string;
  redirect_uris: string[];
  grant_types: string[];
  response_types: ['code'];
  token_endpoint_auth_method: 'private_key_jwt';
  token_endpoint_auth_signing_alg?: string;
  scope: string;
  jwks: { keys: JWK[] };
}

const invalid = (description: string) => new RegistrationError('invalid_client_metadata', description);

function stringArray(value: unknown, member: string): string[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string'))
    throw invalid(`${member} must be an array of strings`);
  return value as string[];
}

function redirectUrisOf(value: unknown, allowlist: readonly string[]): string[] {
  const uris = stringArray(value, 'redirect_uris');
  if (!uris || uris.length === 0) throw new RegistrationError('invalid_redirect_uri', 'redirect_uris is required');
  if (uris.length > MAX_REDIRECT_URIS)
    throw new RegistrationError('invalid_redirect_uri', `at most ${MAX_REDIRECT_URIS} redirect_uris`);
  for (const uri of uris) {
    const refusal = redirectUriRefusal(uri, allowlist, 'dynamic');
    if (refusal === 'not-on-allowlist')
      throw new RegistrationError('invalid_redirect_uri', `${uri} is not on the device enrolment allow-list`);
    if (refusal) throw new RegistrationError('invalid_redirect_uri', `${uri}: ${refusal}`);
  }
  return [...new Set(uris)];
}

async function publicKeysOf(value: unknown): Promise<JWK[]> {
  if (value === undefined) throw invalid('jwks is required: the public keys of the client, inline');
  const keys = (value as { keys?: unknown } | null)?.keys;
  if (typeof value !== 'object' || value === null || !Array.isArray(keys) || keys.length === 0)
    throw invalid('jwks must be a JWK Set with at least one key');
  if (keys.length > MAX_KEYS) throw invalid(`jwks may hold at most ${MAX_KEYS} keys`);
  for (const [i, key] of keys.entries()) {
    if (typeof key !== 'object' || key === null || Array.isArray(key)) throw invalid(`jwks.keys[${i}] is not a JWK`);
    const jwk = key as JWK;
    if (PRIVATE_MEMBERS.some((m) => m in jwk)) throw invalid(`jwks.keys[${i}] holds private key material`);
    if (jwk.kty !== 'RSA' && jwk.kty !== 'EC') throw invalid(`jwks.keys[${i}]: only RSA and EC keys are accepted`);
    if (jwk.alg !== undefined && !ASSERTION_ALGORITHMS.includes(jwk.alg))
      throw invalid(`jwks.keys[${i}]: alg ${jwk.alg} is not accepted`);
    if (jwk.use !== undefined && jwk.use !== 'sig') throw invalid(`jwks.keys[${i}]: use must be sig`);
    if (jwk.kty === 'RSA' && Buffer.from(String(jwk.n ?? ''), 'base64url').length * 8 < MIN_RSA_BITS)
      throw invalid(`jwks.keys[${i}]: an RSA key must have at least ${MIN_RSA_BITS} bits`);
    try {
      await importJWK(jwk, jwk.alg ?? (jwk.kty === 'RSA' ? 'RS256' : curveAlgorithm(jwk.crv)));
    } catch {
      throw invalid(`jwks.keys[${i}] is not a usable public key`);
    }
  }
  return keys as JWK[];
}

function curveAlgorithm(crv: string | undefined): string {
  return crv === 'P-384' ? 'ES384' : crv === 'P-521' ? 'ES512' : 'ES256';
}

/** The registration request, checked; what the registered client will be. */
export async function checkRegistration(
  body: unknown,
  allowlist: readonly string[],
): Promise<Omit<ClientMetadata, 'client_id' | 'client_id_issued_at'>> {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw invalid('the body must be a JSON object of client metadata');
  const request = body as Record<string, unknown>;
  if (request.jwks_uri !== undefined) throw invalid('jwks_uri is not accepted: send the public keys inline as jwks');
  const method = request.token_endpoint_auth_method ?? 'private_key_jwt';
  if (method !== 'private_key_jwt') throw invalid('token_endpoint_auth_method must be private_key_jwt');
  const signingAlg = request.token_endpoint_auth_signing_alg;
  if (signingAlg !== undefined && (typeof signingAlg !== 'string' || !ASSERTION_ALGORITHMS.includes(signingAlg)))
    throw invalid(`token_endpoint_auth_signing_alg must be one of ${ASSERTION_ALGORITHMS.join(', ')}`);
  const grants = stringArray(request.grant_types, 'grant_types') ?? [...DCR_GRANT_TYPES];
  const refused = grants.filter((g) => !(DCR_GRANT_TYPES as readonly string[]).includes(g));
  if (refused.length > 0 || !grants.includes('authorization_code'))
    throw invalid('grant_types may be authorization_code and refresh_token only, with authorization_code');
  const responseTypes = stringArray(request.response_types, 'response_types') ?? ['code'];
  if (responseTypes.length !== 1 || responseTypes[0] !== 'code') throw invalid('response_types must be ["code"]');
  const name = request.client_name;
  if (name !== undefined && (typeof name !== 'string' || name.length > 255))
    throw invalid('client_name must be a string of at most 255 characters');
  return {
    ...(name !== undefined && { client_name: name as string }),
    redirect_uris: redirectUrisOf(request.redirect_uris, allowlist),
    grant_types: [...new Set(grants)],
    response_types: ['code'],
    token_endpoint_auth_method: 'private_key_jwt',
    ...(signingAlg !== undefined && { token_endpoint_auth_signing_alg: signingAlg as string }),
    // Spec 2: a scope sent at registration is not honoured; the default scopes are assigned.
    scope: DCR_SCOPES.join(' '),
    jwks: { keys: await publicKeysOf(request.jwks) },
  };
}

/** Stores the client a checked registration describes and answers its metadata (RFC 7591 §3.2.1). */
export async function registerClient(
  context: AuthContext,
  checked: Omit<ClientMetadata, 'client_id' | 'client_id_issued_at'>,
  input: { principalName: string; refreshTokenTtlSeconds: number },
): Promise<ClientMetadata> {
  const clientId = randomUUID();
  const now = context.now();
  const client: OAuth2Client = {
    apiVersion: API_VERSION,
    kind: 'OAuth2Client',
    metadata: {
      name: clientId,
      namespace: context.namespace,
      labels: { [REGISTRATION_LABEL]: DYNAMIC_REGISTRATION },
      annotations: { [ENROLLED_BY_ANNOTATION]: input.principalName },
    },
    spec: {
      clientId,
      ...(checked.client_name !== undefined && { name: checked.client_name }),
      clientAuthenticationMethods: ['private_key_jwt'],
      authorizationGrantTypes: checked.grant_types as OAuth2Client['spec']['authorizationGrantTypes'],
      redirectUris: checked.redirect_uris,
      scopes: [...DCR_SCOPES],
      clientSettings: { requireProofKey: true, requireAuthorizationConsent: false },
      tokenSettings: {
        [TOKEN_SETTING_KEYS.reuseRefreshTokens]: false,
        [TOKEN_SETTING_KEYS.refreshTokenTtlSeconds]: input.refreshTokenTtlSeconds,
      },
      jwks: checked.jwks as unknown as Record<string, unknown>,
    },
  };
  await context.cluster.create(oauth2ClientKind, client);
  return { client_id: clientId, client_id_issued_at: Math.floor(now.getTime() / 1000), ...checked };
}
