import { createHash } from 'node:crypto';
import { randomSecret, safeEqual } from '../../../../core/auth/digest.ts';

/**
 * CSRF tokens of the HTML forms. Before sign-in (the login form) the token is a random value also set in an
 * HTTP-only cookie: a cross-site form cannot read it, and SameSite=Lax keeps the cookie off cross-site POSTs
 * (double submit). After sign-in (consent, logout) it is derived from the session cookie, which a cross-site
 * page cannot read either, so no state is stored for it.
 */
export function newCsrfValue(): string {
  return randomSecret();
}

export function sessionCsrfToken(sessionCookie: string): string {
  return createHash('sha256').update(`csrf\n${sessionCookie}`).digest('base64url');
}

export function csrfMatches(expected: string | undefined, presented: string | undefined): boolean {
  return expected !== undefined && presented !== undefined && expected.length > 0 && safeEqual(expected, presented);
}
