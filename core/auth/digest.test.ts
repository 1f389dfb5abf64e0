import { describe, expect, it } from 'vitest';
import { hexHash, safeEqual, tokenHash } from './digest.ts';
import { accessTokenHash } from './tokens/issue.ts';

// The SHA-256 of "abc" (FIPS 180-2 appendix B.1), and of "é" (two bytes in UTF-8), computed with openssl.
const ABC_HEX = 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad';
const ABC_BASE64URL = 'ungWv48Bz-pBQUDeXa4iI7ADYaOWF3qctBD_YfIAFa0';
const E_ACUTE_BASE64URL = 'SplVfkAzw1Od4utlRyAXytX5VX96BiWgnxw_biumnEw';

describe('token digests', () => {
  it('hashes a value with SHA-256 over its UTF-8 bytes', () => {
    expect(tokenHash('abc')).toBe(ABC_BASE64URL);
    expect(hexHash('abc')).toBe(ABC_HEX);
    expect(tokenHash('é')).toBe(E_ACUTE_BASE64URL);
  });

  it('makes at_hash from the left half of the access token digest (OIDC Core §3.1.3.6)', () => {
    expect(accessTokenHash('eyJhbGciOiJSUzI1NiJ9.e30.c2ln')).toBe('zFKdmxuKgzYy8vEAuCkuLw');
  });

  it.each([
    ['the same value', 'abc', 'abc', true],
    ['values that differ in the last character', 'abc', 'abd', false],
    ['a value and its prefix', 'abc', 'ab', false],
    ['values of the same bytes in other encodings', 'é', 'Ã©', false],
    ['two empty values', '', '', true],
  ])('compares %s', (_name, a, b, expected) => {
    expect(safeEqual(a, b)).toBe(expected);
  });
});
