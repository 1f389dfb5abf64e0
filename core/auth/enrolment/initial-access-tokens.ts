import { randomUUID } from 'node:crypto';
import { isApiError } from '../../cluster/errors.ts';
import type { KubeObject } from '../../cluster/objects.ts';
import { initialAccessTokenKind, type InitialAccessToken } from '../../resources/initial-access-token/schema.ts';
import { API_VERSION } from '../../resources/kind.ts';
import { REGISTRAR_CLIENT_ID } from '../clients/registrar.ts';
import type { AuthContext } from '../context.ts';
import { tokenHash } from '../digest.ts';
import { endpointUrl } from '../endpoints.ts';
import { OAuthError } from '../errors.ts';
import { initialAccessTokenName } from '../store/names.ts';
import { InvalidJwtError, signJwt, verifyJwt } from '../tokens/jwt.ts';

/**
 * Initial Access Tokens (spec 2, RFC 7591 §3): short-lived JWTs that each allow one registration at
 * `/connect/register`. The token is signed like every token of this server, with its own `typ` so that it is no
 * API credential, and issued in the name of the internal registrar client. Its record (named by the token's hash,
 * holding the hash only) is what makes it single use: the registration that consumes it flips `consumed` by
 * compare-and-swap, so of concurrent registrations with one IAT exactly one wins, on any replica.
 */
export const INITIAL_ACCESS_TOKEN_SCOPE = 'client.create';

export type StoredInitialAccessToken = InitialAccessToken & KubeObject;

export async function mintInitialAccessToken(
  context: AuthContext,
  input: { principalName: string; redirectUri: string; ttlSeconds: number },
): Promise<string> {
  const now = context.now();
  const issuedAt = Math.floor(now.getTime() / 1000);
  const value = await signJwt(context.keys, 'initialAccess', {
    iss: context.issuer,
    sub: input.principalName,
    aud: endpointUrl(context.issuer, 'registration'),
    client_id: REGISTRAR_CLIENT_ID,
    scope: INITIAL_ACCESS_TOKEN_SCOPE,
    jti: randomUUID(),
    iat: issuedAt,
    exp: issuedAt + input.ttlSeconds,
  });
  await context.cluster.create<StoredInitialAccessToken>(initialAccessTokenKind, {
    apiVersion: API_VERSION,
    kind: 'InitialAccessToken',
    metadata: { name: initialAccessTokenName(value), namespace: context.namespace },
    spec: {
      hash: tokenHash(value),
      principalName: input.principalName,
      redirectUri: input.redirectUri,
      expiresAt: new Date((issuedAt + input.ttlSeconds) * 1000).toISOString(),
      consumed: false,
    },
  });
  return value;
}

/**
 * The live record of a presented IAT: its signature, type, issuer, audience and expiry checked, its record found
 * unused. Every refusal is `invalid_token` (RFC 6750). Nothing is spent yet, so the registration can be checked
 * before the token is (a device whose metadata is refused may correct it and retry).
 */
export async function liveInitialAccessToken(context: AuthContext, value: string): Promise<StoredInitialAccessToken> {
  const now = context.now();
  try {
    await verifyJwt(value, context.keys, {
      kind: 'initialAccess',
      issuer: context.issuer,
      audience: endpointUrl(context.issuer, 'registration'),
      now,
    });
  } catch (err) {
    if (err instanceof InvalidJwtError) throw new OAuthError('invalid_token', `initial access token: ${err.message}`);
    throw err;
  }
  const record = await context.cluster.get<StoredInitialAccessToken>(
    initialAccessTokenKind,
    initialAccessTokenName(value),
    context.namespace,
  );
  if (!record || record.spec.hash !== tokenHash(value))
    throw new OAuthError('invalid_token', 'the initial access token is not known');
  if (record.spec.consumed) throw new OAuthError('invalid_token', 'the initial access token was already used');
  if (new Date(record.spec.expiresAt) <= now)
    throw new OAuthError('invalid_token', 'the initial access token has expired');
  return record;
}

/**
 * Spends an IAT: `consumed` set by compare-and-swap on the version that was found live, so of concurrent
 * registrations exactly one gets past this; the others are refused as a replay.
 */
export async function spendInitialAccessToken(context: AuthContext, record: StoredInitialAccessToken): Promise<void> {
  try {
    await context.cluster.update<StoredInitialAccessToken>(initialAccessTokenKind, {
      ...record,
      spec: { ...record.spec, consumed: true },
    });
  } catch (err) {
    if (isApiError(err, 'Conflict') || isApiError(err, 'NotFound'))
      throw new OAuthError('invalid_token', 'the initial access token was already used');
    throw err;
  }
}
