import { z } from 'zod';
import { dateTime, statusBase } from '../common.ts';
import { defineKind } from '../kind.ts';

const storedToken = z
  .object({
    hash: z
      .string()
      .regex(/^[A-Za-z0-9_-]{43}$/, { message: 'must be a base64url SHA-256 hash; token values are never stored' })
      .describe('base64url SHA-256 of the token value.'),
    issuedAt: dateTime,
    expiresAt: dateTime,
    invalidated: z.boolean().default(false).describe('Used, revoked or superseded.'),
  })
  .describe('A token known by its hash only.');

export const oauth2AuthorizationSpecSchema = z
  .object({
    clientId: z.string().min(1).describe('Client the authorization was granted to.'),
    principalName: z.string().min(1).describe('User (or client, for client_credentials) it was granted for.'),
    grantType: z.enum(['authorization_code', 'refresh_token', 'client_credentials']).describe('Grant that created it.'),
    scopes: z.array(z.string()).default([]).describe('Granted scopes.'),
    authorizationCode: storedToken.optional(),
    accessToken: storedToken.optional(),
    refreshToken: storedToken.optional(),
    idToken: storedToken.optional(),
    codeChallenge: z.string().optional().describe('S256 PKCE challenge of the authorization request.'),
    redirectUri: z.string().optional().describe('Redirect URI of the authorization request.'),
    nonce: z.string().optional().describe('OIDC nonce of the authorization request.'),
    authTime: dateTime.optional().describe("When the user authenticated (the ID token's auth_time)."),
    revocation: z
      .object({
        time: dateTime,
        reason: z
          .enum(['code-replayed', 'refresh-token-replayed', 'revoked-by-client'])
          .describe('Why: a used code or superseded refresh token came back, or the client revoked a token.'),
      })
      .optional()
      .describe('Set once the whole authorization is revoked: every token issued from it is refused.'),
  })
  .describe('Tokens issued to one client for one principal, as hashes.');

export const { kind: oauth2AuthorizationKind, schema: oauth2AuthorizationSchema } = defineKind({
  kind: 'OAuth2Authorization',
  plural: 'oauth2authorizations',
  shortNames: ['soauthz'],
  description: 'Authorization record of the authorization server: issued codes and tokens, stored as hashes only.',
  spec: oauth2AuthorizationSpecSchema,
  status: z.object({ ...statusBase }).describe('Observed state.'),
  columns: [
    { name: 'Client', type: 'string', jsonPath: '.spec.clientId' },
    { name: 'Principal', type: 'string', jsonPath: '.spec.principalName' },
  ],
});

export type OAuth2Authorization = z.infer<typeof oauth2AuthorizationSchema>;
