import { hash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * How token values are known to the store: by their SHA-256 only (DESIGN.md §5). A record never holds a code,
 * token, session cookie or password in the clear, so a read of the store grants nothing. Every digest here is
 * node:crypto's one-shot `hash`, which makes no `Hash` object (a JavaScript object with a native half, later
 * collected) per value: a grant takes about ten digests.
 */

/** base64url SHA-256 of a token value: the `hash` member of every token record (43 characters). */
export function tokenHash(value: string): string {
  return hash('sha256', value, 'base64url');
}

/** Lower-case hex SHA-256: usable in resource names (DNS-1123), which base64url is not. */
export function hexHash(value: string): string {
  return hash('sha256', value, 'hex');
}

/** A fresh random secret, base64url; 32 bytes (256 bits) unless told. */
export function randomSecret(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

/** Compares two strings in time independent of where they differ (and of their lengths, through a digest). */
export function safeEqual(a: string, b: string): boolean {
  return timingSafeEqual(hash('sha256', a, 'buffer'), hash('sha256', b, 'buffer')) && a.length === b.length;
}
