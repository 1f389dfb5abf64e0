import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../cluster/objects.ts';
import type { OAuth2Client } from '../../resources/oauth2-client/schema.ts';
import { clientRuleFailures, rivalsOf, type ClientDraft, type RuleContext } from './rules.ts';

const good: ClientDraft = {
  clientId: 'portal',
  clientAuthenticationMethods: ['client_secret_basic'],
  authorizationGrantTypes: ['authorization_code', 'refresh_token'],
  redirectUris: ['https://portal.example.org/cb', 'stratus://oauth'],
  scopes: ['openid', 'profile', 'username', 'email'],
  requireProofKey: true,
  hasSecret: true,
};
const context: RuleContext = { allowlist: ['stratus://oauth'], rivals: [], registrar: false };
const failures = (draft: Partial<ClientDraft>, more: Partial<RuleContext> = {}) =>
  clientRuleFailures({ ...good, ...draft }, { ...context, ...more }).map((f) => [f.errorProperty, f.message]);

describe('the client rules of spec 2', () => {
  it('accept a client that keeps them', () => {
    expect(failures({})).toEqual([]);
  });

  it('bind a stored client by its stored PKCE setting: only a written client must require PKCE (spec 2)', () => {
    expect(failures({ requireProofKey: false }, { stored: true })).toEqual([]);
    expect(failures({ requireProofKey: false }).map(([property]) => property)).toEqual(['clientSettings']);
  });

  it.each([
    ['an empty client id', { clientId: ' ' }, 'clientId', /must not be empty/],
    ['the reserved client id', { clientId: 'system-dcr-registrar-client' }, 'clientId', /reserved/],
    ['no authentication method', { clientAuthenticationMethods: [] }, 'clientAuthenticationMethods', /must name/],
    [
      'an unknown method',
      { clientAuthenticationMethods: ['tls_client_auth'] },
      'clientAuthenticationMethods',
      /Unknown/,
    ],
    ['a secret method without a secret', { hasSecret: false }, 'clientSecret', /need a client secret/],
    [
      'client_secret_jwt without a secret',
      { clientAuthenticationMethods: ['client_secret_jwt'], hasSecret: false },
      'clientSecret',
      /client_secret_jwt/,
    ],
    [
      'private_key_jwt without keys',
      { clientAuthenticationMethods: ['private_key_jwt'] },
      'jwks',
      /needs the client’s public keys/,
    ],
    ['a JWK Set without keys', { jwks: { keys: [] } }, 'jwks', /must be a JWK Set/],
    ['no grant type', { authorizationGrantTypes: [] }, 'authorizationGrantTypes', /must name/],
    ['client_credentials', { authorizationGrantTypes: ['client_credentials'] }, 'authorizationGrantTypes', /registrar/],
    ['the implicit grant', { authorizationGrantTypes: ['implicit'] }, 'authorizationGrantTypes', /'implicit'/],
    [
      'a custom scheme off the allow-list',
      { redirectUris: ['myapp://cb'] },
      'redirectUris',
      /deviceEnrollmentRedirectAllowlist/,
    ],
    ['a relative redirect URI', { redirectUris: ['/cb'] }, 'redirectUris', /not an absolute/],
    ['a redirect URI with a fragment', { redirectUris: ['https://a.example.org/#x'] }, 'redirectUris', /fragment/],
    ['a reserved client.* scope', { scopes: ['openid', 'client.create'] }, 'scopes', /'client.create'/],
    ['PKCE off', { requireProofKey: false }, 'clientSettings', /require-proof-key must be true/],
    [
      'a token TTL that is no duration',
      { tokenSettings: { 'settings.token.access-token-time-to-live': 'soon' } },
      'tokenSettings',
      /access-token-time-to-live/,
    ],
  ] as const)('refuse %s', (_what, draft, property, message) => {
    const found = failures(draft as Partial<ClientDraft>);
    expect(found).toHaveLength(1);
    expect(found[0]![0]).toBe(property);
    expect(found[0]![1]).toMatch(message);
  });

  it.each([
    ['clientId', { clientId: 'c'.repeat(101) }],
    ['name', { name: 'n'.repeat(201) }],
    ['redirectUris', { redirectUris: ['https://a.example.org/cb', `stratus://${'p'.repeat(975)}`] }],
    ['scopes', { scopes: Array(144).fill('openid') }],
    ['authorizationGrantTypes', { authorizationGrantTypes: Array(53).fill('authorization_code') }],
    ['clientAuthenticationMethods', { clientAuthenticationMethods: Array(51).fill('client_secret_basic') }],
  ] as const)('refuse %s past its length limit by its length alone, without quoting it', (property, draft) => {
    expect(failures(draft as Partial<ClientDraft>)).toEqual([
      [property, expect.stringMatching(/^\w+ holds \d+ characters; at most (100|200|1000) are allowed\.$/)],
    ]);
  });

  it('take every member at its length limit', () => {
    expect(
      failures({
        clientId: 'c'.repeat(100),
        name: 'n'.repeat(200),
        redirectUris: [`https://a.example.org/${'p'.repeat(978)}`],
      }),
    ).toEqual([]);
  });

  it('refuse a client without a scope, but the registrar', () => {
    expect(failures({ scopes: [] })).toEqual([['scopes', expect.stringMatching(/must name a scope/)]]);
    const registrar = { clientId: 'system-dcr-registrar-client', authorizationGrantTypes: ['client_credentials'] };
    expect(failures({ ...registrar, scopes: [] }, { registrar: true })).toEqual([]);
  });

  it('report every failure at once', () => {
    expect(failures({ scopes: ['x'], requireProofKey: false, redirectUris: ['a://b'] }).map(([p]) => p)).toEqual([
      'redirectUris',
      'scopes',
      'clientSettings',
    ]);
  });

  it('let the registrar alone hold the reserved id and client_credentials', () => {
    const registrar = { clientId: 'system-dcr-registrar-client', authorizationGrantTypes: ['client_credentials'] };
    expect(failures(registrar, { registrar: true })).toEqual([]);
    // Made without a secret at startup: its client_credentials grant is unusable, not a broken rule.
    expect(failures({ ...registrar, hasSecret: false }, { registrar: true })).toEqual([]);
    expect(failures(registrar).map(([p]) => p)).toEqual(['clientId', 'authorizationGrantTypes']);
  });

  it('hold a device-registered client to the allow-list globs, for every redirect URI', () => {
    const dynamic = { registration: 'dynamic' as const, allowlist: ['stratus://oauth*'] };
    expect(failures({ redirectUris: ['stratus://oauth/cb'] }, dynamic)).toEqual([]);
    expect(failures({ redirectUris: ['https://portal.example.org/cb'] }, dynamic)).toEqual([
      [
        'redirectUris',
        "The redirect URI 'https://portal.example.org/cb' matches no glob of the system setting deviceEnrollmentRedirectAllowlist.",
      ],
    ]);
  });

  it('find the rivals of a client id as the directory does: the client named like its id wins', () => {
    const client = (name: string, clientId: string) =>
      ({ metadata: { name }, spec: { clientId } }) as unknown as OAuth2Client & KubeObject;
    const all = [client('portal', 'portal'), client('other', 'portal'), client('third', 'portal'), client('x', 'y')];
    expect(rivalsOf(all[0]!, all)).toEqual([]);
    expect(rivalsOf(all[1]!, all)).toEqual(['portal', 'third']);
    expect(failures({}, { rivals: ['portal'] })).toEqual([
      ['clientId', "The client id 'portal' is not unique: it is also claimed by portal."],
    ]);
  });
});
