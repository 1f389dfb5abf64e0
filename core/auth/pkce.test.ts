import { describe, expect, it } from 'vitest';
import { isValidS256Challenge, s256Challenge, verifierMatches } from './pkce.ts';

// RFC 7636 appendix B.
const verifier = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
const challenge = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';

describe('PKCE (S256 only)', () => {
  it('computes the challenge of RFC 7636 appendix B', () => {
    expect(s256Challenge(verifier)).toBe(challenge);
    expect(isValidS256Challenge(challenge)).toBe(true);
  });

  it.each([
    ['the right verifier', verifier, true],
    ['a verifier one character off', `${verifier.slice(0, -1)}Y`, false],
    ['no verifier', undefined, false],
    ['the challenge itself (plain)', challenge, false],
    ['a verifier too short', 'abc', false],
    ['a verifier with characters outside the unreserved set', `${verifier.slice(0, -1)}!`, false],
  ])('given %s, matches: %s', (_name, presented, expected) => {
    expect(verifierMatches(presented, challenge)).toBe(expected);
  });

  it('refuses a challenge that is not 43 base64url characters', () => {
    expect(isValidS256Challenge('short')).toBe(false);
    expect(isValidS256Challenge(`${challenge}=`)).toBe(false);
  });
});
