import { z } from 'zod';
import { statusBase } from '../common.ts';
import { defineKind } from '../kind.ts';

export const oauth2AuthorizationConsentSpecSchema = z
  .object({
    clientId: z.string().min(1).describe('Client the consent was given to.'),
    principalName: z.string().min(1).describe('User who consented.'),
    scopes: z.array(z.string()).min(1).describe('Scopes consented to.'),
  })
  .describe('Scopes a user consented to for one client.');

export const { kind: oauth2AuthorizationConsentKind, schema: oauth2AuthorizationConsentSchema } = defineKind({
  kind: 'OAuth2AuthorizationConsent',
  plural: 'oauth2authorizationconsents',
  shortNames: ['soconsent'],
  description: 'Consent record of the authorization server: scopes a user granted a client.',
  spec: oauth2AuthorizationConsentSpecSchema,
  status: z.object({ ...statusBase }).describe('Observed state.'),
  columns: [
    { name: 'Client', type: 'string', jsonPath: '.spec.clientId' },
    { name: 'Principal', type: 'string', jsonPath: '.spec.principalName' },
  ],
});

export type OAuth2AuthorizationConsent = z.infer<typeof oauth2AuthorizationConsentSchema>;
