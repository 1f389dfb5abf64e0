import { hexHash } from '../digest.ts';

/**
 * Names of the objects that are found by a value the client presents: derived from the value's hash, so the
 * store is searched by name (one read) and holds nothing that would let a reader present the value.
 */
export const SESSION_PREFIX = 's-';
export const CLIENT_ASSERTION_PREFIX = 'a-';
export const AUTHORIZATION_PREFIX = 'authz-';
export const CONSENT_PREFIX = 'consent-';
export const INITIAL_ACCESS_TOKEN_PREFIX = 'iat-';

export function sessionName(cookieValue: string): string {
  return `${SESSION_PREFIX}${hexHash(cookieValue)}`;
}

export function clientAssertionName(clientId: string, jti: string): string {
  return `${CLIENT_ASSERTION_PREFIX}${hexHash(`${clientId}\n${jti}`)}`;
}

/** Whether `name` can be a consent object's name: anything else is never read. */
export function isConsentName(name: string): boolean {
  return new RegExp(`^${CONSENT_PREFIX}[0-9a-f]{40}$`).test(name);
}

/** One consent object per client and user. */
export function consentName(clientId: string, principalName: string): string {
  return `${CONSENT_PREFIX}${hexHash(`${clientId}\n${principalName}`).slice(0, 40)}`;
}

export function initialAccessTokenName(value: string): string {
  return `${INITIAL_ACCESS_TOKEN_PREFIX}${hexHash(value)}`;
}
