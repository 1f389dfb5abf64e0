import { z } from 'zod';
import { CLIENT_TEXT_LIMITS } from '../../../core/auth/clients/rules.ts';
import { dhis2FieldsQuery, dhis2PagingQuery, pagerSchema } from '../../dhis2-pager.ts';

const limits = CLIENT_TEXT_LIMITS;
const list = (what: string, limit: number) =>
  z.string().describe(`Comma-separated ${what}; at most ${limit} characters.`);

/** Spec 2's representation of a client: lists as comma-separated strings, settings as JSON strings. */
export const clientBodySchema = z
  .object({
    clientId: z
      .string()
      .describe(`Unique; \`system-dcr-registrar-client\` is reserved; at most ${limits.clientId} characters.`),
    clientSecret: z
      .string()
      .min(1, { message: 'the client secret must not be empty' })
      .max(limits.clientSecret, {
        message: `the client secret must hold at most ${limits.clientSecret} characters`,
      })
      .optional()
      .describe(
        `Write-only: kept in a Secret, never returned; at most ${limits.clientSecret} characters. Needed by the client_secret_* methods; a PUT without it keeps the stored secret, a PUT with it invalidates the old one at once.`,
      ),
    name: z
      .string()
      .optional()
      .describe(
        `Display name, at most ${limits.name} characters; the client id when a POST has none, the stored name when a PUT has none.`,
      ),
    clientAuthenticationMethods: list(
      'client_secret_basic, client_secret_post, client_secret_jwt (HS256 assertions keyed with the secret), private_key_jwt, none',
      limits.clientAuthenticationMethods,
    ).optional(),
    authorizationGrantTypes: list('authorization_code, refresh_token', limits.authorizationGrantTypes).optional(),
    redirectUris: list(
      'redirect URIs: http(s), or a custom scheme on deviceEnrollmentRedirectAllowlist',
      limits.redirectUris,
    ).optional(),
    scopes: list('openid, profile, username, email: at least one', limits.scopes).optional(),
    clientSettings: z
      .string()
      .optional()
      .describe(
        'JSON object with the booleans settings.client.require-proof-key (must be true) and settings.client.require-authorization-consent; both true when omitted.',
      ),
    tokenSettings: z
      .string()
      .optional()
      .describe(
        'JSON object of Spring Authorization Server token settings (settings.token.*); see docs/authorization.md.',
      ),
    jwks: z.string().optional().describe('JSON JWK Set of the public keys of a private_key_jwt client (Stratus).'),
  })
  .loose()
  // No component id: the loose object's input and output descriptions differ, and one id cannot name both.
  .describe('An OAuth2 client as written; members it does not know (id, created, ...) are ignored.');

export const clientRecordSchema = z
  .object({
    id: z.string().describe('The uid.'),
    name: z.string(),
    displayName: z.string(),
    clientId: z.string(),
    clientAuthenticationMethods: z.string(),
    authorizationGrantTypes: z.string(),
    redirectUris: z.string(),
    scopes: z.string(),
    clientSettings: z.string().describe('JSON.'),
    tokenSettings: z.string().describe('JSON; absent when the client has none.'),
    jwks: z.string().describe('JSON; absent when the client has none.'),
    created: z.string(),
    lastUpdated: z.string(),
  })
  .partial()
  .meta({
    id: 'OAuth2Client',
    description: 'An OAuth2 client, with the members that `fields` selects; the secret is never returned.',
  });

export const clientListSchema = z
  .object({
    pager: pagerSchema.optional().describe('Absent with paging=false.'),
    oAuth2Clients: z.array(clientRecordSchema),
  })
  .meta({ id: 'OAuth2ClientList', description: 'A page of OAuth2 clients, DHIS2-style.' });

export const listQuerySchema = z.object({
  fields: dhis2FieldsQuery.describe(
    'Comma-separated members to return; `*` or `:all` for all, `!member` leaves one out; `id,displayName` when absent. Unknown members are ignored. `fields=*&paging=false` is the export that `POST /api/metadata` takes back.',
  ),
  ...dhis2PagingQuery,
});

export const singleQuerySchema = z.object({
  fields: dhis2FieldsQuery.describe(
    'Comma-separated members to return; all when absent; `!member` leaves one out. Unknown members are ignored.',
  ),
});

export const uidParamsSchema = z.object({
  uid: z.string().max(253).describe('The uid of the client (or, for one applied without a uid, its resource name).'),
});
