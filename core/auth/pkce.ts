import { hash } from 'node:crypto';
import { safeEqual } from './digest.ts';

/** RFC 7636 §4.1: 43 to 128 characters of the unreserved set. A S256 challenge is 43 base64url characters. */
const VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;
const S256_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

export function isValidVerifier(verifier: string): boolean {
  return VERIFIER.test(verifier);
}

export function isValidS256Challenge(challenge: string): boolean {
  return S256_CHALLENGE.test(challenge);
}

export function s256Challenge(verifier: string): string {
  // A valid verifier is ASCII, whose UTF-8 bytes are what RFC 7636 §4.2 hashes.
  return hash('sha256', verifier, 'base64url');
}

/** Whether `verifier` is well-formed and hashes to `challenge` (S256 is the only method Stratus accepts). */
export function verifierMatches(verifier: string | undefined, challenge: string): boolean {
  return verifier !== undefined && isValidVerifier(verifier) && safeEqual(s256Challenge(verifier), challenge);
}
