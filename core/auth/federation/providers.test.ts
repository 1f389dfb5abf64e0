import { describe, expect, it } from 'vitest';
import { parseInstanceConfig } from '../../config/index.ts';
import { resolveProviders, type ProviderLog } from './providers.ts';

/** A logger that keeps what it is told, by level. */
function recordingLog() {
  const lines: { level: string; message: string }[] = [];
  const at =
    (level: string) =>
    (...args: unknown[]) =>
      lines.push({ level, message: String(args.find((a) => typeof a === 'string')) });
  const log = { info: at('info'), warn: at('warn'), error: at('error') } as unknown as ProviderLog;
  return { log, lines, errors: () => lines.filter((l) => l.level === 'error').map((l) => l.message) };
}

function resolve(lines: string[]) {
  const recorded = recordingLog();
  const config = parseInstanceConfig(lines.join('\n'), 'test');
  return { registry: resolveProviders(config, recorded.log), ...recorded, config };
}

const GENERIC = [
  'oidc.provider.keycloak.client_id = stratus',
  'oidc.provider.keycloak.client_secret = s3cret',
  'oidc.provider.keycloak.issuer_uri = https://id.example.org/realms/climate',
  'oidc.provider.keycloak.authorization_uri = https://id.example.org/realms/climate/auth',
  'oidc.provider.keycloak.token_uri = https://id.example.org/realms/climate/token',
  'oidc.provider.keycloak.user_info_uri = https://id.example.org/realms/climate/userinfo',
  'oidc.provider.keycloak.jwk_uri = https://id.example.org/realms/climate/certs',
];

describe('identity provider registry', () => {
  it('gives a generic provider spec 2 defaults and its key, issuer and redirect URL', () => {
    const { registry, errors } = resolve(['server.base.url = https://climate.example.org/', ...GENERIC]);
    expect(errors()).toEqual([]);
    expect(registry.internal).toBeUndefined();
    expect(registry.external).toEqual([
      expect.objectContaining({
        kind: 'external',
        key: 'keycloak',
        builtIn: undefined,
        issuers: ['https://id.example.org/realms/climate'],
        clientId: 'stratus',
        clientSecret: 's3cret',
        clientAuthenticationMethod: 'client_secret_basic',
        clientAssertionKeystore: undefined,
        jwkUri: 'https://id.example.org/realms/climate/certs',
        endSessionEndpoint: undefined,
        redirectUrl: 'https://climate.example.org/oauth2/code/keycloak',
        mappingClaim: 'email',
        scopes: ['openid', 'email'],
        displayAlias: 'keycloak',
        enableLogout: true,
        enablePkce: false,
        authorizationGrantType: 'authorization_code',
        extraRequestParameters: {},
        userInfoResponseType: 'json',
        userInfoJwsAlgorithm: 'RS256',
      }),
    ]);
    expect(registry.byIssuer('https://id.example.org/realms/climate').map((p) => p.key)).toEqual(['keycloak']);
    expect(registry.byKey('keycloak')?.key).toBe('keycloak');
  });

  it('reads every optional key of a generic provider', () => {
    const { registry, errors } = resolve([
      ...GENERIC.filter((l) => !l.includes('client_secret')),
      'oidc.provider.keycloak.mapping_claim = username',
      'oidc.provider.keycloak.redirect_url = https://proxy.example.org/cb',
      'oidc.provider.keycloak.end_session_endpoint = https://id.example.org/logout',
      'oidc.provider.keycloak.scopes = openid, email ,profile',
      'oidc.provider.keycloak.display_alias = Climate ID',
      'oidc.provider.keycloak.login_image = /static/id.png',
      'oidc.provider.keycloak.login_image_padding = 2px 4px',
      'oidc.provider.keycloak.enable_logout = off',
      'oidc.provider.keycloak.enable_pkce = true',
      'oidc.provider.keycloak.authorization_grant_type = authorization_code',
      'oidc.provider.keycloak.client_authentication_method = private_key_jwt',
      'oidc.provider.keycloak.keystore_path = /etc/stratus/idp.p12',
      'oidc.provider.keycloak.keystore_password = store',
      'oidc.provider.keycloak.key_alias = idp',
      'oidc.provider.keycloak.jwk_set_url = https://climate.example.org/api/publicKeys/stratus/jwks.json',
      'oidc.provider.keycloak.extra_request_parameters = acr_values urn:mace:x, prompt  login',
      'oidc.provider.keycloak.user_info_response_type = JWT',
      'oidc.provider.keycloak.user_info_jws_algorithm = ES384',
    ]);
    expect(errors()).toEqual([]);
    expect(registry.external[0]).toMatchObject({
      clientSecret: undefined,
      clientAuthenticationMethod: 'private_key_jwt',
      clientAssertionKeystore: {
        path: '/etc/stratus/idp.p12',
        password: 'store',
        alias: 'idp',
        keyPassword: 'store',
        jwkSetUrl: 'https://climate.example.org/api/publicKeys/stratus/jwks.json',
      },
      mappingClaim: 'username',
      redirectUrl: 'https://proxy.example.org/cb',
      endSessionEndpoint: 'https://id.example.org/logout',
      scopes: ['openid', 'email', 'profile'],
      displayAlias: 'Climate ID',
      loginImage: '/static/id.png',
      loginImagePadding: '2px 4px',
      enableLogout: false,
      enablePkce: true,
      extraRequestParameters: { acr_values: 'urn:mace:x', prompt: 'login' },
      userInfoResponseType: 'jwt',
      userInfoJwsAlgorithm: 'ES384',
    });
  });

  it('gives idpa and each idpb tenant their fixed endpoints, and keeps the order idpa, idpb by n, generic', () => {
    const { registry, errors } = resolve([
      'server.base.url = https://climate.example.org',
      ...GENERIC,
      'oidc.provider.idpb.1.tenant = contoso.onmicrosoft.com',
      'oidc.provider.idpb.1.client_id = b1',
      'oidc.provider.idpb.1.client_secret = s',
      'oidc.provider.idpb.1.enable_logout = off',
      'oidc.provider.idpb.0.tenant = 72f988bf-86f1-41af-91ab-2d7cd011db47',
      'oidc.provider.idpb.0.client_id = b0',
      'oidc.provider.idpb.0.client_secret = s',
      'oidc.provider.idpa.client_id = a',
      'oidc.provider.idpa.client_secret = s',
      'oidc.provider.idpa.redirect_url = https://proxy.example.org/oauth2/code/idpa',
    ]);
    expect(errors()).toEqual([]);
    expect(registry.external.map((p) => p.key)).toEqual(['idpa', 'idpb.0', 'idpb.1', 'keycloak']);
    expect(registry.external[0]).toMatchObject({
      builtIn: 'idpa',
      issuers: ['https://accounts.google.com', 'accounts.google.com'],
      authorizationUri: 'https://accounts.google.com/o/oauth2/v2/auth',
      tokenUri: 'https://oauth2.googleapis.com/token',
      userInfoUri: 'https://openidconnect.googleapis.com/v1/userinfo',
      jwkUri: 'https://www.googleapis.com/oauth2/v3/certs',
      redirectUrl: 'https://proxy.example.org/oauth2/code/idpa',
      mappingClaim: 'email',
    });
    const tenant = 'https://login.microsoftonline.com/72f988bf-86f1-41af-91ab-2d7cd011db47';
    expect(registry.external[1]).toMatchObject({
      builtIn: 'idpb',
      issuers: [`${tenant}/v2.0`],
      authorizationUri: `${tenant}/oauth2/v2.0/authorize`,
      tokenUri: `${tenant}/oauth2/v2.0/token`,
      jwkUri: `${tenant}/discovery/v2.0/keys`,
      endSessionEndpoint: `${tenant}/oauth2/v2.0/logout`,
      redirectUrl: 'https://climate.example.org/oauth2/code/idpb.0',
      enableLogout: true,
    });
    expect(registry.external[2]).toMatchObject({ key: 'idpb.1', enableLogout: false });
    expect(registry.byIssuer('accounts.google.com').map((p) => p.key)).toEqual(['idpa']);
  });

  it.each([
    [['oidc.provider.keycloak.client_secret = '], 'keycloak', 'client_secret is required'],
    [['oidc.provider.keycloak.user_info_response_type = xml'], 'keycloak', 'user_info_response_type = xml'],
    [['oidc.provider.keycloak.user_info_jws_algorithm = HS256'], 'keycloak', 'user_info_jws_algorithm = HS256'],
    [['oidc.provider.keycloak.user_info_jws_algorithm = none'], 'keycloak', 'user_info_jws_algorithm = none'],
    [['oidc.provider.keycloak.enable_pkce = maybe'], 'keycloak', 'enable_pkce = maybe must be on or off'],
    [['oidc.provider.keycloak.authorization_grant_type = implicit'], 'keycloak', 'authorization_grant_type'],
    [['oidc.provider.keycloak.client_authentication_method = none'], 'keycloak', 'client_authentication_method'],
    [['oidc.provider.keycloak.jwk_uri = /certs'], 'keycloak', 'jwk_uri = /certs is not an absolute http(s) URL'],
    [['oidc.provider.keycloak.extra_request_parameters = prompt'], 'keycloak', '"prompt" is not a key and a value'],
    [
      ['oidc.provider.keycloak.client_authentication_method = private_key_jwt', 'oidc.provider.keycloak.key_alias = k'],
      'keycloak',
      'keystore_path is required with private_key_jwt',
    ],
    [['oidc.provider.idpc.client_id = c'], 'idpc', 'the id idpc is reserved'],
    [['oidc.provider.my-idp.client_id = c'], 'my-idp', 'must be alphanumeric'],
    [['oidc.provider.my_idp.client_id = c'], 'my_idp', 'must be alphanumeric'],
    [['oidc.provider.idpb.0.client_id = c', 'oidc.provider.idpb.0.client_secret = s'], 'idpb.0', 'tenant is required'],
    [['oidc.provider.idpb.0.tenant = a/b'], 'idpb.0', 'tenant = a/b must be a tenant id'],
  ])('rejects the provider of %j with a log line and still loads the others', (lines, id, why) => {
    const other = GENERIC.map((l) => l.replace('keycloak', 'other'));
    // A key given twice: the later line wins, as in any properties file.
    const { registry, errors } = resolve([...GENERIC, ...other, ...lines]);
    expect(errors()).toHaveLength(1);
    expect(errors()[0]).toContain(`identity provider ${id} rejected (keys oidc.provider.${id}.*): `);
    expect(errors()[0]).toContain(why);
    expect(registry.external.map((p) => p.key)).toContain('other');
    expect(registry.byKey(id)).toBeUndefined();
  });

  it('suggests the closest key for an unknown provider key (core/config)', () => {
    const { config } = resolve(['oidc.provider.keycloak.user_info_jws_algoritm = RS256']);
    expect(config.warnings[0]).toContain('did you mean "oidc.provider.keycloak.user_info_jws_algorithm"?');
  });

  it('keeps an unsupported mapping claim, with a warning: its tokens are refused per request (spec 2)', () => {
    const { registry, lines } = resolve([...GENERIC, 'oidc.provider.keycloak.mapping_claim = sub']);
    expect(registry.external[0]?.mappingClaim).toBe('sub');
    expect(lines).toContainEqual({ level: 'warn', message: expect.stringContaining('mapping_claim sub') });
  });

  it('registers the internal provider from server.base.url with the platform overrides', () => {
    const { registry } = resolve([
      'server.base.url = https://climate.example.org/',
      'oauth2.server.enabled = on',
      'oidc.provider.platform.mapping_claim = email',
      'oidc.provider.platform.client_id = mobile',
      'oidc.provider.platform.server_url = http://stratus-api.stratus.svc:8000/',
      ...GENERIC,
    ]);
    expect(registry.internal).toEqual({
      kind: 'internal',
      key: 'platform-internal',
      issuer: 'https://climate.example.org',
      clientId: 'mobile',
      clientSecret: undefined,
      mappingClaim: 'email',
      serverUrl: 'http://stratus-api.stratus.svc:8000',
    });
    expect(registry.byIssuer('https://climate.example.org')).toEqual([registry.internal]);
    expect(registry.byKey('platform-internal')).toBe(registry.internal);
    expect(resolve(['server.base.url = https://x.example.org']).registry.internal).toBeUndefined();
  });

  it("rejects an external provider claiming this instance's issuer, and lets providers share another", () => {
    const { registry, errors } = resolve([
      'server.base.url = https://climate.example.org',
      'oauth2.server.enabled = on',
      ...GENERIC,
      ...GENERIC.map((l) => l.replace('keycloak', 'second').replace('= stratus', '= stratus-2')),
      ...GENERIC.map((l) => l.replace('keycloak', 'mirror')),
      'oidc.provider.mirror.issuer_uri = https://climate.example.org',
    ]);
    expect(errors()).toEqual([
      expect.stringContaining("its issuer https://climate.example.org is this instance's own"),
    ]);
    expect(registry.byIssuer('https://id.example.org/realms/climate').map((p) => p.key)).toEqual([
      'keycloak',
      'second',
    ]);
  });
});
