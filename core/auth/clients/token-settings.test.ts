import { describe, expect, it } from 'vitest';
import { DEFAULT_TOKEN_SETTINGS, tokenSettingsOf } from './token-settings.ts';

const of = (tokenSettings?: Record<string, unknown>) => tokenSettingsOf({ spec: { tokenSettings } } as never);

describe('client token settings', () => {
  it('defaults to Spring Authorization Server’s values when unset', () => {
    expect(of()).toEqual({ ok: true, settings: DEFAULT_TOKEN_SETTINGS });
  });

  it('reads seconds and ISO 8601 durations, and rotation', () => {
    expect(
      of({
        'settings.token.access-token-time-to-live': 'PT10M',
        'settings.token.refresh-token-time-to-live': 2592000,
        'settings.token.reuse-refresh-tokens': false,
      }),
    ).toEqual({
      ok: true,
      settings: {
        ...DEFAULT_TOKEN_SETTINGS,
        accessTokenTtlSeconds: 600,
        refreshTokenTtlSeconds: 2592000,
        reuseRefreshTokens: false,
      },
    });
    expect(of({ 'settings.token.refresh-token-time-to-live': 'P30DT1H' })).toMatchObject({
      settings: { refreshTokenTtlSeconds: 30 * 86400 + 3600 },
    });
  });

  it('keeps an authorization code at 10 minutes at most', () => {
    expect(of({ 'settings.token.authorization-code-time-to-live': 'PT1H' })).toMatchObject({
      settings: { authorizationCodeTtlSeconds: 600 },
    });
  });

  it.each([
    ['a negative duration', { 'settings.token.access-token-time-to-live': -5 }],
    ['a malformed duration', { 'settings.token.access-token-time-to-live': 'five minutes' }],
    ['an empty duration', { 'settings.token.refresh-token-time-to-live': 'PT' }],
    ['reuse as a string', { 'settings.token.reuse-refresh-tokens': 'false' }],
  ])('refuses %s with what is wrong', (_name, settings) => {
    const result = of(settings);
    expect(result.ok).toBe(false);
    expect(result.ok ? [] : result.problems[0]).toMatch(/^settings\.token\./);
  });
});
