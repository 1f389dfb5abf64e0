import { createSecretKey, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { newAuthorizationName } from '../store/authorizations.ts';
import { newRefreshToken, refreshTokenAuthorization } from './refresh-token.ts';

describe('opaque refresh tokens', () => {
  const key = createSecretKey(randomBytes(32));
  const name = newAuthorizationName();

  it('name their authorization to the key that made them, and are different every time', () => {
    const token = newRefreshToken(key, name);
    expect(refreshTokenAuthorization(key, token)).toBe(name);
    expect(newRefreshToken(key, name)).not.toBe(token);
    expect(token).toMatch(/^authz-[0-9a-f]{32}\.[A-Za-z0-9_-]{43}\.[A-Za-z0-9_-]{43}$/);
  });

  it("are nobody's under another key, or with any part changed", () => {
    const token = newRefreshToken(key, name);
    const [, secret, mac] = token.split('.') as [string, string, string];
    const other = newAuthorizationName();
    for (const value of [
      token.slice(0, -1) + (token.endsWith('A') ? 'B' : 'A'),
      `${other}.${secret}.${mac}`,
      `${name}.${secret}`,
      `${token}.x`,
      `../${name}.${secret}.${mac}`,
      '',
    ])
      expect(refreshTokenAuthorization(key, value)).toBeUndefined();
    expect(refreshTokenAuthorization(createSecretKey(randomBytes(32)), token)).toBeUndefined();
  });
});
