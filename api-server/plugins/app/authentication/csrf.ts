import { createHash, createHmac, createSecretKey, hkdfSync, type KeyObject } from 'node:crypto';
import { randomSecret, safeEqual } from '../../../../core/auth/digest.ts';

/**
 * CSRF tokens of the HTML forms. Before sign-in (the login form) the browser holds a pre-session: a random value in
 * an HTTP-only cookie, which a cross-site page can neither read nor, with SameSite=Lax, send with its POST. The
 * form's token is an HMAC of that value under a key every replica shares, so the server verifies that it issued
 * the token for this very pre-session: a pair of equal values made up by someone else, or the token of another
 * browser's pre-session, is refused. After sign-in (consent, logout) the token is derived from the session cookie,
 * which a cross-site page cannot read either, so no state is stored for it.
 */
export function newPreSession(): string {
  return randomSecret();
}

/**
 * The key of login CSRF tokens, derived (HKDF) from the installation's token key (core/auth/keys/token-key.ts), one
 * Secret for every replica: derived, so that no token of one purpose is ever a valid MAC of the other.
 */
export function loginCsrfKey(tokenKey: KeyObject): KeyObject {
  return createSecretKey(Buffer.from(hkdfSync('sha256', tokenKey, Buffer.alloc(0), 'stratus login csrf', 32)));
}

export function loginCsrfToken(key: KeyObject, preSession: string): string {
  return createHmac('sha256', key).update(`login-csrf\n${preSession}`).digest('base64url');
}

/** Whether `presented` is the token this server gives the pre-session `preSession`. */
export function loginCsrfValid(key: KeyObject, preSession: string | undefined, presented: string | undefined): boolean {
  return preSession !== undefined && preSession.length > 0 && csrfMatches(loginCsrfToken(key, preSession), presented);
}

export function sessionCsrfToken(sessionCookie: string): string {
  return createHash('sha256').update(`csrf\n${sessionCookie}`).digest('base64url');
}

export function csrfMatches(expected: string | undefined, presented: string | undefined): boolean {
  return expected !== undefined && presented !== undefined && expected.length > 0 && safeEqual(expected, presented);
}
