import { z } from 'zod';
import { dateTime, statusBase } from '../common.ts';
import { defineKind } from '../kind.ts';

/**
 * A `private_key_jwt` or `client_secret_jwt` client assertion (RFC 7523) already used. Its name is derived from the hash of the client
 * id and the assertion's `jti`, so a second use of the assertion fails to create it (409): single use until it
 * expires, whatever replica sees it.
 */
export const oauth2ClientAssertionSpecSchema = z
  .object({
    clientId: z.string().min(1).describe('Client that presented the assertion.'),
    expiresAt: dateTime.describe('Expiry of the assertion; the record is collected after it.'),
  })
  .describe('A used client assertion, by the hash of its jti.');

export const { kind: oauth2ClientAssertionKind, schema: oauth2ClientAssertionSchema } = defineKind({
  kind: 'OAuth2ClientAssertion',
  plural: 'oauth2clientassertions',
  shortNames: ['soassert'],
  description:
    'A used private_key_jwt or client_secret_jwt client assertion (RFC 7523), kept until it expires so it cannot be replayed.',
  spec: oauth2ClientAssertionSpecSchema,
  status: z.object({ ...statusBase }).describe('Observed state.'),
  columns: [{ name: 'Client', type: 'string', jsonPath: '.spec.clientId' }],
});

export type OAuth2ClientAssertion = z.infer<typeof oauth2ClientAssertionSchema>;
