import { z } from 'zod';
import { MAX_IAT_TTL_SECONDS } from '../../../core/auth/system-settings.ts';
import { oauth2AuthorizationSpecSchema } from '../../../core/resources/oauth2-authorization/schema.ts';

const listSetting = (description: string) => z.string().describe(`Comma-separated ${description}.`);

export const systemSettingsSchema = z
  .object({
    deviceEnrollmentRedirectAllowlist: listSetting(
      'URI globs (`*`: any run of characters) a device may enrol with; a custom-scheme redirect URI of a client must appear verbatim. Default `stratus://oauth`',
    ),
    deviceEnrollmentAllowedUserGroups: listSetting(
      'user-group ids whose members may enrol devices; empty: any signed-in user. Default empty',
    ),
    deviceEnrollmentIATTtlSeconds: z
      .number()
      .int()
      .describe(`Lifetime of an initial access token, 1 to ${MAX_IAT_TTL_SECONDS} seconds. Default 60.`),
  })
  .meta({ id: 'SystemSettings', description: 'The system settings in force, defaults included.' });

/** A write names any of the settings; unknown names and bad values are refused with InvalidSystemSetting. */
export const systemSettingsWriteSchema = z.record(z.string(), z.unknown()).meta({
  id: 'SystemSettingsWrite',
  description:
    'Settings to store, all or none: lists as comma-separated text, the TTL as a number (or its decimal text).',
});

export const settingKeyParams = z.object({
  key: z.string().describe('The setting, e.g. deviceEnrollmentIATTtlSeconds.'),
});

export const settingValueQuery = z.object({
  value: z.string().optional().describe('The value, instead of a text/plain body.'),
});

export const webMessageOkSchema = z
  .object({
    httpStatus: z.literal('OK'),
    httpStatusCode: z.literal(200),
    status: z.literal('OK'),
    message: z.string(),
  })
  .meta({ id: 'WebMessageOk', description: 'The DHIS2 WebMessage of a successful write.' });

const time = z.string().describe('RFC 3339 date-time.');

// One token of an authorization: when it was issued, when it expires, whether it is spent; never its value.
const issuedAt = (noun: string) => time.optional().describe(`When the ${noun} was issued.`);
const expiresAt = (noun: string) => time.optional().describe(`When the ${noun} expires.`);
const invalidated = (noun: string) =>
  z.boolean().optional().describe(`Whether the ${noun} is used, superseded or revoked.`);

export const authorizationMembers = {
  id: z.string().describe('The record name; access tokens carry it as `authorization_id`.'),
  registeredClientId: z.string().describe('The client id the authorization was granted to.'),
  principalName: z.string().describe('The user (or, for client_credentials, the client) it was granted for.'),
  authorizationGrantType: oauth2AuthorizationSpecSchema.shape.grantType,
  authorizedScopes: z.string().describe('Granted scopes, comma-separated.'),
  created: time.describe('When the authorization was created.'),
  lastUpdated: time.describe('When a token was last issued from it, or when it was revoked.'),
  authorizationCodeIssuedAt: issuedAt('authorization code'),
  authorizationCodeExpiresAt: expiresAt('authorization code'),
  authorizationCodeInvalidated: invalidated('authorization code'),
  accessTokenIssuedAt: issuedAt('access token'),
  accessTokenExpiresAt: expiresAt('access token'),
  accessTokenInvalidated: invalidated('access token'),
  refreshTokenIssuedAt: issuedAt('refresh token'),
  refreshTokenExpiresAt: expiresAt('refresh token'),
  refreshTokenInvalidated: invalidated('refresh token'),
  oidcIdTokenIssuedAt: issuedAt('ID token'),
  oidcIdTokenExpiresAt: expiresAt('ID token'),
  oidcIdTokenInvalidated: invalidated('ID token'),
  revoked: z.boolean().describe('Whether the whole authorization is revoked.'),
  revokedAt: time.optional(),
  revocationReason: oauth2AuthorizationSpecSchema.shape.revocation.unwrap().shape.reason.optional(),
};

export const consentMembers = {
  id: z.string().describe('The record name.'),
  registeredClientId: z.string().describe('The client id consented to.'),
  principalName: z.string().describe('The user who consented.'),
  scopes: z.string().describe('Scopes consented to, comma-separated.'),
  authorities: z.string().describe('The same as authorities, `SCOPE_<scope>` comma-separated, as DHIS2 shows them.'),
  created: time.describe('When the user first consented.'),
};

/** With `fields=` a member may be left out, so every member is optional in the response. */
export const authorizationSchema = z.object(authorizationMembers).partial().meta({
  id: 'OAuth2AuthorizationRecord',
  description: 'An authorization of the authorization server: its tokens by time and state, never a value or hash.',
});

export const consentSchema = z
  .object(consentMembers)
  .partial()
  .meta({ id: 'OAuth2AuthorizationConsentRecord', description: 'The scopes a user consented to for a client.' });

export const recordIdParams = z.object({ id: z.string().describe('The record name (`id`).') });
