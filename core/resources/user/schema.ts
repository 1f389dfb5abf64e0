import { z } from 'zod';
import { dateTime, statusBase } from '../common.ts';
import { defineKind } from '../kind.ts';

export const userSpecSchema = z
  .object({
    username: z.string().min(1).max(255).describe('Login name.'),
    email: z.email({ message: 'must be an e-mail address' }).optional().describe('E-mail address.'),
    openId: z.string().optional().describe('Mapping-claim value of an external identity (case-sensitive).'),
    externalAuthOnly: z.boolean().default(false).describe('Only external (OIDC) login is allowed.'),
    passwordSecretRef: z
      .object({ name: z.string(), key: z.string() })
      .optional()
      .describe('Secret key holding the password hash.'),
    disabled: z.boolean().default(false).describe('A disabled account cannot log in.'),
    accountExpiry: dateTime.optional().describe('After this time the account cannot log in.'),
    groups: z.array(z.string()).default([]).describe('User groups.'),
    authorities: z.array(z.string()).default([]).describe('Authorities, e.g. F_OAUTH2_CLIENT_MANAGE, ALL.'),
  })
  .describe('A local user account.');

export const userStatusSchema = z
  .object({
    ...statusBase,
    lastLogin: dateTime
      .optional()
      .describe(
        'When the user last signed in through an external identity provider; of accounts linked to one identity, the most recent signs in.',
      ),
  })
  .describe('Observed state of the user.');

export const { kind: userKind, schema: userSchema } = defineKind({
  kind: 'User',
  plural: 'users',
  shortNames: ['susr'],
  description: 'A local user account, possibly mapped to an external identity.',
  spec: userSpecSchema,
  status: userStatusSchema,
  columns: [{ name: 'Username', type: 'string', jsonPath: '.spec.username' }],
});

export type User = z.infer<typeof userSchema>;
