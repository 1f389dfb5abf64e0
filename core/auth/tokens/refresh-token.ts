import { createHmac, type KeyObject } from 'node:crypto';
import { randomSecret, safeEqual } from '../digest.ts';
import { isAuthorizationName } from '../store/authorizations.ts';

/**
 * Refresh tokens are opaque: `<authorization name>.<secret>.<mac>`, the MAC an HMAC-SHA256 of the first two parts
 * under the installation's token key (core/auth/keys/token-key.ts). Only their hash is stored, in the authorization
 * record, as for every token. The MAC tells a refresh token this server issued from a forgery without a signature:
 * a genuine one that is no longer the authorization's current one was superseded, and presenting it revokes the
 * family (RFC 9700 §4.14), while a made-up value naming someone's authorization is merely refused. An HMAC costs
 * microseconds where an RS256 signature costs a millisecond and more, on every grant.
 */
const PURPOSE = 'stratus refresh token\n';

function macOf(key: KeyObject, body: string): string {
  return createHmac('sha256', key).update(PURPOSE).update(body).digest('base64url');
}

export function newRefreshToken(key: KeyObject, authorizationName: string): string {
  const body = `${authorizationName}.${randomSecret()}`;
  return `${body}.${macOf(key, body)}`;
}

/** The authorization a refresh token this server issued belongs to; undefined for anything else. */
export function refreshTokenAuthorization(key: KeyObject, value: string): string | undefined {
  const parts = value.split('.');
  if (parts.length !== 3) return undefined;
  const [name, secret, mac] = parts as [string, string, string];
  if (!isAuthorizationName(name) || !/^[A-Za-z0-9_-]{43}$/.test(secret)) return undefined;
  return safeEqual(mac, macOf(key, `${name}.${secret}`)) ? name : undefined;
}
