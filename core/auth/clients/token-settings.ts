import type { OAuth2Client } from '../../resources/oauth2-client/schema.ts';

/**
 * A client's token settings (`spec.tokenSettings`), under Spring Authorization Server's key names. Durations are
 * seconds (a number) or ISO 8601 durations (`PT5M`). Unset keys take Spring's defaults; the authorization code
 * lives at most 10 minutes whatever the setting says.
 */
export interface TokenSettings {
  authorizationCodeTtlSeconds: number;
  accessTokenTtlSeconds: number;
  refreshTokenTtlSeconds: number;
  /** false: every refresh returns a new refresh token and supersedes the presented one (rotation). */
  reuseRefreshTokens: boolean;
}

export const TOKEN_SETTING_KEYS = {
  authorizationCodeTtlSeconds: 'settings.token.authorization-code-time-to-live',
  accessTokenTtlSeconds: 'settings.token.access-token-time-to-live',
  refreshTokenTtlSeconds: 'settings.token.refresh-token-time-to-live',
  reuseRefreshTokens: 'settings.token.reuse-refresh-tokens',
} as const;

export const DEFAULT_TOKEN_SETTINGS: TokenSettings = {
  authorizationCodeTtlSeconds: 300,
  accessTokenTtlSeconds: 300,
  refreshTokenTtlSeconds: 3600,
  reuseRefreshTokens: true,
};

export const MAX_AUTHORIZATION_CODE_TTL_SECONDS = 600;

const ISO_DURATION = /^P(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?)?$/;

function seconds(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) && value > 0 ? Math.floor(value) : undefined;
  if (typeof value !== 'string') return undefined;
  const match = ISO_DURATION.exec(value);
  if (!match || value === 'P' || value.endsWith('T')) return undefined;
  const [, d, h, m, s] = match;
  const total = Number(d ?? 0) * 86400 + Number(h ?? 0) * 3600 + Number(m ?? 0) * 60 + Number(s ?? 0);
  return total > 0 ? Math.floor(total) : undefined;
}

export type TokenSettingsResult = { ok: true; settings: TokenSettings } | { ok: false; problems: string[] };

export function tokenSettingsOf(client: Pick<OAuth2Client, 'spec'>): TokenSettingsResult {
  return tokenSettingsFrom(client.spec.tokenSettings);
}

/** Reads token settings as stored (or as the client administration receives them); unknown keys are ignored. */
export function tokenSettingsFrom(raw: Readonly<Record<string, unknown>> = {}): TokenSettingsResult {
  const settings = { ...DEFAULT_TOKEN_SETTINGS };
  const problems: string[] = [];
  for (const field of ['authorizationCodeTtlSeconds', 'accessTokenTtlSeconds', 'refreshTokenTtlSeconds'] as const) {
    const key = TOKEN_SETTING_KEYS[field];
    if (raw[key] === undefined) continue;
    const value = seconds(raw[key]);
    if (value === undefined) problems.push(`${key} must be a positive number of seconds or an ISO 8601 duration`);
    else settings[field] = value;
  }
  const reuse = raw[TOKEN_SETTING_KEYS.reuseRefreshTokens];
  if (reuse !== undefined) {
    if (typeof reuse === 'boolean') settings.reuseRefreshTokens = reuse;
    else problems.push(`${TOKEN_SETTING_KEYS.reuseRefreshTokens} must be true or false`);
  }
  settings.authorizationCodeTtlSeconds = Math.min(
    settings.authorizationCodeTtlSeconds,
    MAX_AUTHORIZATION_CODE_TTL_SECONDS,
  );
  return problems.length > 0 ? { ok: false, problems } : { ok: true, settings };
}
