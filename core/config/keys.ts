/**
 * Every key of the instance configuration file: exact keys, and patterns for per-module and per-provider keys.
 * One list, used to parse, to suggest the closest key for a typo, and to check docs/configuration.md.
 */
export const exactKeys = [
  'instance.name',
  'instance.description',
  'instance.bbox',
  'instance.crs',
  'storage.root',
  'read_only',
  'server.base.url',
  'server.cors.allowed_origins',
  'server.proxy.trusted',
  'server.timeout.headers',
  'server.timeout.request',
  'server.timeout.keep_alive',
  'server.timeout.shutdown',
  'oauth2.server.enabled',
  'oauth2.server.jwt.keystore.path',
  'oauth2.server.jwt.keystore.alias',
  'oauth2.server.jwt.keystore.password',
  'oauth2.server.jwt.keystore.key-password',
  'oauth2.server.jwt.keystore.generate-if-missing',
  'oauth2.server.dcr.refresh-token-ttl',
  'oidc.oauth2.login.enabled',
  'security.anonymous_read',
  'oidc.jwt.token.authentication.enabled',
  'oidc.logout.redirect_url',
  'linked_accounts.enabled',
  'linked_accounts.logout_url',
  'linked_accounts.relogin_url',
  'logging.file.max_size',
  'logging.file.max_archives',
  'processing.sync.timeout',
  'processing.sync.max_cells',
  'processing.sync.max_read_cells',
  'processing.sync.max_output_size',
  'processing.sync.max_memory',
  'processing.sync.heap_size',
  'processing.sync.young_generation_size',
  'processing.sync.concurrency',
  'processing.worker_threads',
  'changelog.aggregate',
  'datasets.version_grace_period',
  'map.basemap.url',
  'map.basemap.attribution',
] as const;

export const idpaKeys = ['client_id', 'client_secret', 'mapping_claim', 'redirect_url'] as const;
export const idpbKeys = [
  'tenant',
  'client_id',
  'client_secret',
  'redirect_url',
  'mapping_claim',
  'enable_logout',
] as const;
export const genericProviderKeys = [
  'client_id',
  'client_secret',
  'mapping_claim',
  'redirect_url',
  'issuer_uri',
  'authorization_uri',
  'token_uri',
  'user_info_uri',
  'jwk_uri',
  'end_session_endpoint',
  'scopes',
  'display_alias',
  'login_image',
  'login_image_padding',
  'enable_logout',
  'enable_pkce',
  'authorization_grant_type',
  'client_authentication_method',
  'keystore_path',
  'keystore_password',
  'key_alias',
  'key_password',
  'jwk_set_url',
  'extra_request_parameters',
  'user_info_response_type',
  'user_info_jws_algorithm',
] as const;
/** The internal provider's overrides (spec 2, "Internal provider"). */
export const platformKeys = ['client_id', 'client_secret', 'mapping_claim', 'server_url'] as const;

export interface KeyPattern {
  pattern: RegExp;
  /** How the pattern reads in messages and docs. */
  template: string;
}

export const keyPatterns: KeyPattern[] = [
  { pattern: /^logging\.level\.[A-Za-z0-9_.-]+$/, template: 'logging.level.<module>' },
  { pattern: new RegExp(`^oidc\\.provider\\.idpa\\.(${idpaKeys.join('|')})$`), template: 'oidc.provider.idpa.<key>' },
  {
    pattern: new RegExp(`^oidc\\.provider\\.idpb\\.\\d+\\.(${idpbKeys.join('|')})$`),
    template: 'oidc.provider.idpb.<n>.<key>',
  },
  {
    pattern: new RegExp(`^oidc\\.provider\\.platform\\.(${platformKeys.join('|')})$`),
    template: 'oidc.provider.platform.<key>',
  },
  {
    pattern: new RegExp(
      `^oidc\\.provider\\.(?!idpa\\.|idpb\\.|platform\\.)[A-Za-z0-9_-]+\\.(${genericProviderKeys.join('|')})$`,
    ),
    template: 'oidc.provider.<id>.<key>',
  },
];

export function isKnownKey(key: string): boolean {
  return (exactKeys as readonly string[]).includes(key) || keyPatterns.some((p) => p.pattern.test(key));
}

function distance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) rows[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, rows[i - 2]![j - 2]! + 1);
      rows[i]![j] = best;
    }
  }
  return rows[a.length]![b.length]!;
}

/** The candidate closest to `typed` by edit distance (the first of equals). */
export function closestOf(typed: string, candidates: readonly string[]): string {
  return candidates.reduce((best, c) => (distance(typed, c) < distance(typed, best) ? c : best));
}

/** The valid key closest to `key`: exact keys, and pattern keys completed with the typed key's own segments. */
export function closestKey(key: string): string {
  const candidates: string[] = [...exactKeys];
  const provider = /^oidc\.provider\.([^.]+)(?:\.(\d+))?\.(.+)$/.exec(key);
  if (provider) {
    candidates.push(...idpaKeys.map((k) => `oidc.provider.idpa.${k}`));
    candidates.push(...idpbKeys.map((k) => `oidc.provider.idpb.${provider[2] ?? '0'}.${k}`));
    candidates.push(...platformKeys.map((k) => `oidc.provider.platform.${k}`));
    if (provider[1] !== 'platform')
      candidates.push(...genericProviderKeys.map((k) => `oidc.provider.${provider[1]}.${k}`));
  }
  if (key.startsWith('logging.')) candidates.push(`logging.level.${key.split('.').slice(2).join('.') || 'root'}`);
  return closestOf(key, candidates);
}

/**
 * Keys of features this version does not have yet, with the feature and the issue that brings it: setting one stops
 * startup, so that an operator never believes a setting works that nothing reads. The issue removes its entry.
 */
export const notBuiltKeys: { matches: (key: string) => boolean; feature: string }[] = [];

/** The feature a key configures when this version does not have it yet, else undefined. */
export function notBuiltFeature(key: string): string | undefined {
  return notBuiltKeys.find((entry) => entry.matches(key))?.feature;
}
