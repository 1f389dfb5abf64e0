import { describe, expect, it } from 'vitest';
import { ConfigError, LOG_FILE_CAP_BYTES, parseInstanceConfig } from './index.ts';
import { closestKey, isKnownKey } from './keys.ts';
import { parseProperties } from './properties.ts';

describe('properties format', () => {
  it('reads comments, both separators, continuations and trims', () => {
    const text = '# comment\n! also\n\n  a.b = 1 \nc: two words\nlong = first \\\n   second\nempty=\n';
    expect(parseProperties(text)).toEqual([
      { key: 'a.b', value: '1', line: 4 },
      { key: 'c', value: 'two words', line: 5 },
      { key: 'long', value: 'first second', line: 6 },
      { key: 'empty', value: '', line: 8 },
    ]);
  });
});

describe('instance configuration', () => {
  it('has working defaults without a file', () => {
    const config = parseInstanceConfig('', 'none');
    expect(config.instance).toEqual({
      name: 'Stratus',
      description: null,
      bbox: [-180, -90, 180, 90],
      crs: 'EPSG:4326',
    });
    expect(config.readOnly).toBe(false);
    expect(config.logging).toMatchObject({ maxSizeBytes: 100 * 1024 * 1024, rollSizeBytes: LOG_FILE_CAP_BYTES });
    expect(config.logging.maxArchives).toBe(0);
    expect(config.changelog.aggregate).toBe(true);
    expect(parseInstanceConfig('changelog.aggregate = off', 'f').changelog.aggregate).toBe(false);
  });

  it('reads the extent, flags, sizes, levels and providers', () => {
    const config = parseInstanceConfig(
      [
        'instance.name = Sierra Leone',
        'instance.bbox = -13.5, 6.9, -10.2, 10.0',
        'read_only = on',
        'server.base.url = https://climate.example.org/',
        'logging.file.max_size = 10MB',
        'logging.file.max_archives = 3',
        'logging.level.operator = debug',
        'oidc.provider.platform.mapping_claim = email',
      ].join('\n'),
      'f',
    );
    expect(config.instance.bbox).toEqual([-13.5, 6.9, -10.2, 10]);
    expect(config.readOnly).toBe(true);
    expect(config.server.baseUrl).toBe('https://climate.example.org');
    expect(config.logging).toMatchObject({
      maxSizeBytes: 10 * 1024 * 1024,
      rollSizeBytes: 10 * 1024 * 1024,
      maxArchives: 3,
    });
    expect(config.logging.levels).toEqual({ operator: 'DEBUG' });
    expect(config.oidc.providers).toEqual([{ id: 'platform', mapping_claim: 'email' }]);
    expect(config.warnings).toEqual([]);
  });

  it('stops startup on a login through external providers without server.base.url', () => {
    expect(() => parseInstanceConfig('oidc.oauth2.login.enabled = on', 'f')).toThrow(
      "f: oidc.oauth2.login.enabled = on requires server.base.url (the login page's address)",
    );
  });

  it('accepts a login through external providers without the authorization server', () => {
    const config = parseInstanceConfig(
      ['oidc.oauth2.login.enabled = on', 'server.base.url = https://climate.example.org'].join('\n'),
      'f',
    );
    expect(config.oauth2.serverEnabled).toBe(false);
    expect(config.oidc.loginEnabled).toBe(true);
  });

  it.each([
    ['instance.bbx = 1,2,3,4', 'instance.bbox'],
    ['read_onyl = on', 'read_only'],
    ['oauth2.server.enable = on', 'oauth2.server.enabled'],
    ['oidc.provider.idpa.client_secre = s', 'oidc.provider.idpa.client_secret'],
    ['oidc.provider.idpb.2.tenat = t', 'oidc.provider.idpb.2.tenant'],
    ['oidc.provider.keycloak.jwks_uri = https://id.example.org/certs', 'oidc.provider.keycloak.jwk_uri'],
    ['oidc.provider.platform.serverurl = https://x.example.org', 'oidc.provider.platform.server_url'],
    ['logging.file.max_archive = 2', 'logging.file.max_archives'],
  ])('reports the unknown key in %j with the closest valid key %j', (line, suggestion) => {
    const config = parseInstanceConfig(`\n${line}`, 'stratus.properties');
    expect(config.warnings[0]).toBe(
      `Unknown configuration key "${line.split(' =')[0]}" at stratus.properties:2; did you mean "${suggestion}"?`,
    );
  });

  it.each([
    ['instance.bbox = 1,2,3', 'instance.bbox', '4 numbers'],
    ['instance.bbox = 5,0,1,1', 'instance.bbox', 'xmin < xmax'],
    ['read_only = maybe', 'read_only', 'on or off'],
    ['logging.file.max_size = lots', 'logging.file.max_size', 'size'],
    ['logging.level.api = LOUD', 'logging.level.api', 'DEBUG, INFO, WARN or ERROR'],
    [
      'logging.level.operater = DEBUG',
      'logging.level.operater',
      'no module is named operater; did you mean operator\\?',
    ],
    ['logging.file.max_archives = -1', 'logging.file.max_archives', 'a whole number, 0 or more'],
    ['logging.file.max_size = 10 MiB', 'logging.file.max_size', 'a size such as 100MB'],
    ['server.base.url = climate.example.org', 'server.base.url', 'absolute http\\(s\\) URL'],
  ])('refuses %j naming the file, line and key', (line, key, why) => {
    expect(() => parseInstanceConfig(line, 'stratus.properties')).toThrow(ConfigError);
    expect(() => parseInstanceConfig(line, 'stratus.properties')).toThrow(
      new RegExp(`stratus\\.properties.*${key}.*${why}`),
    );
  });

  it('keeps the keys of each provider for the provider registry (core/auth/federation), a bad value included', () => {
    const config = parseInstanceConfig(
      ['oidc.provider.idpb.0.tenant = t0', 'oidc.provider.idpb.0.mapping_claim = phone'].join('\n'),
      'f',
    );
    expect(config.oidc.providers).toEqual([{ id: 'idpb.0', tenant: 't0', mapping_claim: 'phone' }]);
  });

  it('refuses the authorization server without server.base.url, and warns when it is missing', () => {
    expect(() => parseInstanceConfig('oauth2.server.enabled = on', 'f')).toThrow(/requires server.base.url/);
    expect(parseInstanceConfig('', 'f').warnings).toContain(
      'server.base.url is not set: links and issuer URLs are derived from each request',
    );
  });

  it('requires the alias of a configured keystore, and reads its passwords', () => {
    expect(() => parseInstanceConfig('oauth2.server.jwt.keystore.path = /etc/ks.p12', 'f')).toThrow(
      /oauth2.server.jwt.keystore.alias is required/,
    );
    const config = parseInstanceConfig(
      [
        'oauth2.server.jwt.keystore.path = /etc/ks.jks',
        'oauth2.server.jwt.keystore.alias = signer',
        'oauth2.server.jwt.keystore.password = store',
        'oauth2.server.jwt.keystore.key-password = key',
        'oauth2.server.jwt.keystore.generate-if-missing = false',
      ].join('\n'),
      'f',
    );
    expect(config.oauth2.keystore).toEqual({
      path: '/etc/ks.jks',
      alias: 'signer',
      password: 'store',
      keyPassword: 'key',
      generateIfMissing: false,
    });
  });

  it('knows pattern keys and refuses near misses of them', () => {
    expect(isKnownKey('logging.level.operator.jobs')).toBe(true);
    expect(isKnownKey('oidc.provider.idpb.12.enable_logout')).toBe(true);
    expect(isKnownKey('oidc.provider.idpa.tenant')).toBe(false);
    // Spec 2: a generic id is any alphanumeric string, capitals included.
    expect(isKnownKey('oidc.provider.KeyCloak2.user_info_jws_algorithm')).toBe(true);
    expect(isKnownKey('oidc.provider.platform.issuer_uri')).toBe(false);
    expect(closestKey('instance.nme')).toBe('instance.name');
  });
});

describe('docs/configuration.md', () => {
  it('documents every key and key pattern', async () => {
    const { readFile } = await import('node:fs/promises');
    const { resolve } = await import('node:path');
    const { exactKeys, keyPatterns } = await import('./keys.ts');
    const docs = await readFile(resolve(import.meta.dirname, '../../docs/configuration.md'), 'utf8');
    for (const key of [...exactKeys, ...keyPatterns.map((p) => p.template)])
      expect(docs, key).toContain(`| \`${key}\` |`);
  });
});
