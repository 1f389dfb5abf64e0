import type { ConditionCatalogue } from '../conditions.ts';

/** The reasons of an OAuth2Client's conditions and Events (the client rules: core/auth/clients/rules.ts). */
export const oauth2ClientConditions = {
  reasons: {
    ValidClient: {
      state: 'ready',
      description: 'The client keeps the client rules of spec 2: the authorization server uses it.',
    },
    StoredWithoutProofKey: {
      state: 'ready',
      description:
        'The client was stored without PKCE (settings.client.require-proof-key false): the authorization server uses it as stored, since spec 2 switches no persisted client to PKCE retroactively, but an administrator should make it require PKCE; the client administration refuses new and updated clients without it.',
    },
    InvalidClient: {
      state: 'stalled',
      description:
        'The client breaks client rules (the message lists each); the authorization server refuses to use it until it is corrected.',
    },
  },
  events: {
    InvalidClient: { type: 'Warning', description: 'The client became one that breaks the client rules.' },
  },
} as const satisfies ConditionCatalogue;
