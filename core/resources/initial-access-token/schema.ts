import { z } from 'zod';
import { dateTime, statusBase } from '../common.ts';
import { defineKind } from '../kind.ts';

export const initialAccessTokenSpecSchema = z
  .object({
    hash: z
      .string()
      .regex(/^[A-Za-z0-9_-]{43}$/, { message: 'must be a base64url SHA-256 hash; token values are never stored' })
      .describe('base64url SHA-256 of the IAT.'),
    principalName: z.string().min(1).describe('User who enrolled the device.'),
    redirectUri: z.string().min(1).describe('Deep link the IAT was sent to.'),
    expiresAt: dateTime,
    consumed: z.boolean().default(false).describe('Set, by compare-and-swap, by the one registration it allows.'),
  })
  .describe('A one-time Initial Access Token for dynamic client registration.');

export const { kind: initialAccessTokenKind, schema: initialAccessTokenSchema } = defineKind({
  kind: 'InitialAccessToken',
  plural: 'initialaccesstokens',
  shortNames: ['siat'],
  description: 'One-time Initial Access Token record for device enrolment (RFC 7591), stored as a hash.',
  spec: initialAccessTokenSpecSchema,
  status: z.object({ ...statusBase }).describe('Observed state.'),
  columns: [
    { name: 'Principal', type: 'string', jsonPath: '.spec.principalName' },
    { name: 'Consumed', type: 'boolean', jsonPath: '.spec.consumed' },
  ],
});

export type InitialAccessToken = z.infer<typeof initialAccessTokenSchema>;
