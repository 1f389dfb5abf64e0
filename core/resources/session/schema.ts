import { z } from 'zod';
import { dateTime, statusBase } from '../common.ts';
import { defineKind } from '../kind.ts';

/**
 * A sign-in session of the login page. The cookie value is never stored: the object's name is derived from its
 * SHA-256 (core/auth/store/sessions.ts), so any API server replica finds the session from the cookie.
 */
export const sessionSpecSchema = z
  .object({
    principalName: z.string().min(1).describe('Username of the signed-in user.'),
    authTime: dateTime.describe('When the user signed in.'),
    expiresAt: dateTime.describe('When the session ends, however active it is.'),
    provider: z.string().optional().describe('Key of the external provider the user signed in through, if any.'),
    idTokenSealed: z
      .string()
      .optional()
      .describe("The provider's ID token for its logout, encrypted with a key derived from the session cookie."),
  })
  .describe('A signed-in browser session, known by the hash of its cookie.');

export const { kind: sessionKind, schema: sessionSchema } = defineKind({
  kind: 'Session',
  plural: 'sessions',
  shortNames: ['ssess'],
  description: 'A sign-in session of the login page; its name is the hash of the session cookie, never the cookie.',
  spec: sessionSpecSchema,
  status: z.object({ ...statusBase }).describe('Observed state.'),
  columns: [
    { name: 'Principal', type: 'string', jsonPath: '.spec.principalName' },
    { name: 'Expires', type: 'date', jsonPath: '.spec.expiresAt' },
  ],
});

export type Session = z.infer<typeof sessionSchema>;
