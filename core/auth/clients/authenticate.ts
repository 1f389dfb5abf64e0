import {
  createLocalJWKSet,
  decodeProtectedHeader,
  errors,
  jwtVerify,
  type JSONWebKeySet,
  type JWTVerifyGetKey,
} from 'jose';
import type { Cluster } from '../../cluster/port.ts';
import type { OAuth2Client } from '../../resources/oauth2-client/schema.ts';
import { safeEqual } from '../digest.ts';
import { OAuthError } from '../errors.ts';
import { useClientAssertion } from '../store/client-assertions.ts';
import { CLOCK_TOLERANCE_SECONDS } from '../tokens/jwt.ts';
import type { ClientDirectory } from './directory.ts';

/**
 * Client authentication at the token, revocation and introspection endpoints (RFC 6749 §2.3, RFC 7523):
 * `client_secret_basic`, `client_secret_post`, `client_secret_jwt`, `private_key_jwt`, or `none` for a public client.
 * A client uses exactly one method, one it registered.
 */
export const JWT_BEARER_ASSERTION = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';
/** `private_key_jwt`: asymmetric algorithms only, a client's key pair signs, nothing shared with the server. */
export const ASSERTION_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512'];
/**
 * `client_secret_jwt` assertions are MACs keyed with the client secret (RFC 7523 §2.2, OIDC Core §9); an assertion's
 * `alg` tells the two assertion methods apart, so a client registered for one cannot pass the other's check.
 */
export const SECRET_ASSERTION_ALGORITHMS = ['HS256'];
/** An assertion may not be valid for longer than this: it is single use and meant for one request. */
export const MAX_ASSERTION_LIFETIME_SECONDS = 600;

export type AuthenticationMethod =
  'client_secret_basic' | 'client_secret_post' | 'client_secret_jwt' | 'private_key_jwt' | 'none';

export interface PresentedClientCredentials {
  /** From `Authorization: Basic`, already form-decoded. */
  basic?: { clientId: string; secret: string };
  clientId?: string;
  clientSecret?: string;
  clientAssertionType?: string;
  clientAssertion?: string;
}

export interface AuthenticatedClient {
  client: OAuth2Client;
  method: AuthenticationMethod;
}

/** `invalid_client`, remembering whether Basic was tried: RFC 6749 §5.2 answers it with a Basic challenge. */
export class ClientAuthenticationError extends OAuthError {
  readonly basic: boolean;
  constructor(description: string, basic: boolean) {
    super('invalid_client', description);
    this.basic = basic;
  }
}

/** Decodes an `Authorization: Basic` header; client id and secret are form-encoded inside it (RFC 6749 §2.3.1). */
export function parseBasic(header: string | undefined): PresentedClientCredentials['basic'] | 'malformed' | undefined {
  if (!header || !/^basic\b/i.test(header.trim())) return undefined;
  const match = /^Basic +([A-Za-z0-9+/=]+)$/i.exec(header.trim());
  if (!match) return 'malformed';
  const text = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = text.indexOf(':');
  if (colon < 0) return 'malformed';
  try {
    const decode = (part: string) => decodeURIComponent(part.replace(/\+/g, ' '));
    return { clientId: decode(text.slice(0, colon)), secret: decode(text.slice(colon + 1)) };
  } catch {
    return 'malformed';
  }
}

export interface ClientAuthenticationContext {
  clients: ClientDirectory;
  cluster: Cluster;
  namespace: string;
  /** Audiences an assertion may name: the issuer and the endpoint URLs. */
  audiences: string[];
  now: Date;
}

function methodOf(presented: PresentedClientCredentials): AuthenticationMethod | 'several' | 'unknown' {
  const methods: AuthenticationMethod[] = [];
  if (presented.basic) methods.push('client_secret_basic');
  if (presented.clientSecret !== undefined) methods.push('client_secret_post');
  if (presented.clientAssertion !== undefined || presented.clientAssertionType !== undefined)
    methods.push(assertionMethod(presented.clientAssertion));
  if (methods.length > 1) return 'several';
  if (methods.length === 1) return methods[0]!;
  return presented.clientId !== undefined ? 'none' : 'unknown';
}

/** The assertion method an assertion's `alg` names: a MAC is keyed with the client secret, a signature is not. */
function assertionMethod(assertion: string | undefined): 'client_secret_jwt' | 'private_key_jwt' {
  if (!assertion) return 'private_key_jwt';
  try {
    const { alg } = decodeProtectedHeader(assertion);
    return typeof alg === 'string' && /^HS\d+$/.test(alg) ? 'client_secret_jwt' : 'private_key_jwt';
  } catch {
    return 'private_key_jwt';
  }
}

/** The client id an assertion claims, read before its signature can be checked (to find the client's keys). */
function assertionSubject(assertion: string): string | undefined {
  try {
    const payload = JSON.parse(Buffer.from(assertion.split('.')[1] ?? '', 'base64url').toString('utf8')) as {
      sub?: unknown;
    };
    return typeof payload.sub === 'string' ? payload.sub : undefined;
  } catch {
    return undefined;
  }
}

/** What checks an assertion's signature: the client's public keys, or its secret; and why a wrong one fails. */
interface AssertionKey {
  key: JWTVerifyGetKey;
  algorithms: string[];
  wrongKey: string;
}

function publicKeysOf(client: OAuth2Client): AssertionKey {
  const jwks = client.spec.jwks as JSONWebKeySet | undefined;
  if (!jwks || !Array.isArray(jwks.keys))
    throw new ClientAuthenticationError('the client has no registered keys', false);
  return {
    key: createLocalJWKSet(jwks),
    algorithms: ASSERTION_ALGORITHMS,
    wrongKey: 'the client assertion is not signed by a key of the client',
  };
}

async function secretKeyOf(client: OAuth2Client, context: ClientAuthenticationContext): Promise<AssertionKey> {
  const secret = await context.clients.secretOf(client);
  if (secret === undefined) throw new ClientAuthenticationError('the client has no secret', false);
  return {
    key: () => new TextEncoder().encode(secret),
    algorithms: SECRET_ASSERTION_ALGORITHMS,
    wrongKey: 'the client assertion is not signed with the client secret',
  };
}

async function checkAssertion(
  client: OAuth2Client,
  assertion: string,
  { key, algorithms, wrongKey }: AssertionKey,
  context: ClientAuthenticationContext,
) {
  const clientId = client.spec.clientId;
  let payload;
  try {
    ({ payload } = await jwtVerify(assertion, key, {
      algorithms,
      issuer: clientId,
      subject: clientId,
      audience: context.audiences,
      clockTolerance: CLOCK_TOLERANCE_SECONDS,
      currentDate: context.now,
      requiredClaims: ['exp', 'jti'],
    }));
  } catch (err) {
    const why =
      err instanceof errors.JWTExpired
        ? 'the client assertion has expired'
        : err instanceof errors.JWTClaimValidationFailed
          ? `the client assertion's ${err.claim} claim is not accepted`
          : err instanceof errors.JOSEAlgNotAllowed
            ? `the client assertion's alg is not accepted: allowed are ${algorithms.join(', ')}`
            : wrongKey;
    throw new ClientAuthenticationError(why, false);
  }
  const now = Math.floor(context.now.getTime() / 1000);
  if (payload.exp! - now > MAX_ASSERTION_LIFETIME_SECONDS)
    throw new ClientAuthenticationError(
      `the client assertion must expire within ${MAX_ASSERTION_LIFETIME_SECONDS} s`,
      false,
    );
  const fresh = await useClientAssertion(context.cluster, context.namespace, {
    clientId,
    jti: payload.jti!,
    expiresAt: new Date(payload.exp! * 1000),
  });
  if (!fresh) throw new ClientAuthenticationError('the client assertion was already used', false);
}

export async function authenticateClient(
  presented: PresentedClientCredentials,
  context: ClientAuthenticationContext,
): Promise<AuthenticatedClient> {
  const method = methodOf(presented);
  if (method === 'several')
    throw new OAuthError('invalid_request', 'the client must authenticate with one method only');
  if (method === 'unknown') throw new ClientAuthenticationError('client authentication is required', false);
  const basic = method === 'client_secret_basic';
  const byAssertion = method === 'private_key_jwt' || method === 'client_secret_jwt';
  if (byAssertion && presented.clientAssertionType !== JWT_BEARER_ASSERTION)
    throw new ClientAuthenticationError(`client_assertion_type must be ${JWT_BEARER_ASSERTION}`, false);
  if (byAssertion && !presented.clientAssertion)
    throw new ClientAuthenticationError('client_assertion is missing', false);
  const clientId =
    method === 'client_secret_basic'
      ? presented.basic!.clientId
      : byAssertion
        ? assertionSubject(presented.clientAssertion!)
        : presented.clientId;
  if (!clientId) throw new ClientAuthenticationError('the client is not identified', basic);
  if (presented.clientId !== undefined && presented.clientId !== clientId)
    throw new OAuthError('invalid_request', 'client_id does not match the client that authenticated');
  const lookup = await context.clients.lookup(clientId);
  if (!lookup.found)
    throw new ClientAuthenticationError(
      lookup.why === 'unknown' ? 'unknown client' : 'the client breaks the client rules and cannot be used',
      basic,
    );
  const { client } = lookup;
  if (!client.spec.clientAuthenticationMethods.includes(method))
    throw new ClientAuthenticationError(`the client is not registered for ${method}`, basic);
  if (method === 'client_secret_basic' || method === 'client_secret_post') {
    const expected = await context.clients.secretOf(client);
    const given = method === 'client_secret_basic' ? presented.basic!.secret : presented.clientSecret!;
    if (expected === undefined || !safeEqual(given, expected))
      throw new ClientAuthenticationError('the client secret is wrong', basic);
  } else if (byAssertion) {
    const key = method === 'private_key_jwt' ? publicKeysOf(client) : await secretKeyOf(client, context);
    await checkAssertion(client, presented.clientAssertion!, key, context);
  }
  return { client, method };
}
