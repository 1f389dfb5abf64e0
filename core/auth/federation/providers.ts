import type { Logger } from 'pino';
import type { InstanceConfig, OidcProviderConfig } from '../../config/index.ts';

/**
 * The identity providers an instance trusts (spec 2, "Authentication"): the internal provider `platform-internal`
 * (this authorization server) and the external ones of the configuration — the built-ins `idpa` and `idpb.<n>`
 * and generic `oidc.provider.<id>.*` blocks. One registry, judged once at startup, so the bearer filter, the login
 * page and `/credentials/oidc` see the same list. A provider whose keys are wrong is left out with a log line and
 * the others load (spec 2: "rejects the provider"); only the instance-wide keys stop startup (core/config).
 */

export const INTERNAL_PROVIDER_KEY = 'platform-internal';

/** Algorithms a JWT userinfo response may be signed with: asymmetric only, so no HMAC and no `none`. */
export const USER_INFO_JWS_ALGORITHMS = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
] as const;
export type UserInfoJwsAlgorithm = (typeof USER_INFO_JWS_ALGORITHMS)[number];

export const CLIENT_AUTHENTICATION_METHODS = ['client_secret_basic', 'client_secret_post', 'private_key_jwt'] as const;
export type ClientAuthenticationMethod = (typeof CLIENT_AUTHENTICATION_METHODS)[number];

/** The per-provider keystore that signs `private_key_jwt` client assertions, and where the provider finds its key. */
export interface ClientAssertionKeystore {
  path: string;
  password: string;
  alias: string;
  /** The key entry's password; the keystore password when not configured. */
  keyPassword: string;
  /** Placed in the assertion's `jku` header. */
  jwkSetUrl: string;
}

export interface ExternalProvider {
  kind: 'external';
  /** `idpa`, `idpb.<n>` or the generic id: the path segment of `/oauth2/code/<key>` and openEO's provider id. */
  key: string;
  builtIn: 'idpa' | 'idpb' | undefined;
  /** Accepted `iss` values, the canonical one first; empty when a generic provider names no `issuer_uri`. */
  issuers: string[];
  clientId: string;
  /** Absent only with `private_key_jwt`. */
  clientSecret: string | undefined;
  clientAuthenticationMethod: ClientAuthenticationMethod;
  clientAssertionKeystore: ClientAssertionKeystore | undefined;
  authorizationUri: string;
  tokenUri: string;
  userInfoUri: string;
  jwkUri: string;
  endSessionEndpoint: string | undefined;
  /** `redirect_url`, else `<server.base.url>/oauth2/code/<key>`; undefined without a base URL. */
  redirectUrl: string | undefined;
  /**
   * The claim naming the local user, as configured: spec 2 supports `email` and `username` only and refuses any
   * other per request (401 'Invalid mapping claim', see mapping.ts), so it is kept as written.
   */
  mappingClaim: string;
  scopes: string[];
  displayAlias: string;
  loginImage: string | undefined;
  loginImagePadding: string | undefined;
  enableLogout: boolean;
  enablePkce: boolean;
  authorizationGrantType: 'authorization_code';
  extraRequestParameters: Record<string, string>;
  userInfoResponseType: 'json' | 'jwt';
  userInfoJwsAlgorithm: UserInfoJwsAlgorithm;
}

/** This authorization server as a provider (spec 2, "Internal provider"). */
export interface InternalProvider {
  kind: 'internal';
  key: typeof INTERNAL_PROVIDER_KEY;
  /** `server.base.url`: the `iss` of every token this server issues. */
  issuer: string;
  clientId: string;
  clientSecret: string | undefined;
  mappingClaim: string;
  /** `oidc.provider.platform.server_url`, default `server.base.url`. */
  serverUrl: string;
}

export type Provider = InternalProvider | ExternalProvider;

export interface ProviderRegistry {
  /** Present when the authorization server is on. */
  internal: InternalProvider | undefined;
  /** In configuration order: idpa, idpb.<n> by n, then generic ids as the file names them. */
  external: ExternalProvider[];
  byKey(key: string): Provider | undefined;
  /** Every provider accepting this `iss` (several external providers may share an issuer with different clients). */
  byIssuer(issuer: string): Provider[];
}

export type ProviderLog = Pick<Logger, 'info' | 'warn' | 'error'>;

const MAPPING_CLAIMS = ['email', 'username'];
const RESERVED_IDS = ['idpa', 'idpb', 'idpc', 'platform'];

/** A provider block that cannot be used: the message says which key to fix. */
class ProviderRejected extends Error {}

const IDPA = {
  issuers: ['https://accounts.google.com', 'accounts.google.com'],
  authorizationUri: 'https://accounts.google.com/o/oauth2/v2/auth',
  tokenUri: 'https://oauth2.googleapis.com/token',
  userInfoUri: 'https://openidconnect.googleapis.com/v1/userinfo',
  jwkUri: 'https://www.googleapis.com/oauth2/v3/certs',
};

function idpbEndpoints(tenant: string) {
  const base = `https://login.microsoftonline.com/${tenant}`;
  return {
    issuers: [`${base}/v2.0`],
    authorizationUri: `${base}/oauth2/v2.0/authorize`,
    tokenUri: `${base}/oauth2/v2.0/token`,
    userInfoUri: 'https://graph.microsoft.com/oidc/userinfo',
    jwkUri: `${base}/discovery/v2.0/keys`,
    endSessionEndpoint: `${base}/oauth2/v2.0/logout`,
  };
}

/** Reads one provider block's keys, each judged once; any bad value rejects the provider. */
class Keys {
  readonly #raw: OidcProviderConfig;
  constructor(raw: OidcProviderConfig) {
    this.#raw = raw;
  }

  optional(key: string): string | undefined {
    const value = this.#raw[key]?.trim();
    return value === undefined || value === '' ? undefined : value;
  }

  required(key: string, why = ''): string {
    const value = this.optional(key);
    if (value === undefined) throw new ProviderRejected(`${key} is required${why}`);
    return value;
  }

  url(key: string, value = this.optional(key)): string | undefined {
    if (value === undefined) return undefined;
    let parsed: URL | undefined;
    try {
      parsed = new URL(value);
    } catch {
      parsed = undefined;
    }
    if (!parsed || !['http:', 'https:'].includes(parsed.protocol))
      throw new ProviderRejected(`${key} = ${value} is not an absolute http(s) URL`);
    return value;
  }

  requiredUrl(key: string): string {
    return this.url(key, this.required(key))!;
  }

  flag(key: string, fallback: boolean): boolean {
    const value = this.optional(key)?.toLowerCase();
    if (value === undefined) return fallback;
    if (['on', 'true', 'yes'].includes(value)) return true;
    if (['off', 'false', 'no'].includes(value)) return false;
    throw new ProviderRejected(`${key} = ${value} must be on or off`);
  }

  oneOf<T extends string>(key: string, allowed: readonly T[], fallback: T, normalise = (v: string) => v): T {
    const value = this.optional(key);
    if (value === undefined) return fallback;
    const normalised = normalise(value);
    if (!(allowed as readonly string[]).includes(normalised))
      throw new ProviderRejected(`${key} = ${value} must be one of ${allowed.join(', ')}`);
    return normalised as T;
  }

  list(key: string, fallback: string[]): string[] {
    const value = this.optional(key);
    if (value === undefined) return fallback;
    return value
      .split(',')
      .map((v) => v.trim())
      .filter(Boolean);
  }
}

/** `extra_request_parameters`: comma-separated pairs, each a key and a value separated by a space. */
export function parseExtraRequestParameters(text: string | undefined): Record<string, string> {
  const parameters: Record<string, string> = {};
  if (text === undefined) return parameters;
  for (const pair of text.split(',').map((p) => p.trim())) {
    if (pair === '') continue;
    const match = /^(\S+)\s+(.+)$/.exec(pair);
    if (!match)
      throw new ProviderRejected(`extra_request_parameters: "${pair}" is not a key and a value separated by a space`);
    parameters[match[1]!] = match[2]!.trim();
  }
  return parameters;
}

function clientCredentials(
  keys: Keys,
): Pick<ExternalProvider, 'clientId' | 'clientSecret' | 'clientAuthenticationMethod' | 'clientAssertionKeystore'> {
  const method = keys.oneOf('client_authentication_method', CLIENT_AUTHENTICATION_METHODS, 'client_secret_basic');
  const clientId = keys.required('client_id');
  if (method !== 'private_key_jwt')
    return {
      clientId,
      clientSecret: keys.required('client_secret'),
      clientAuthenticationMethod: method,
      clientAssertionKeystore: undefined,
    };
  const password = keys.optional('keystore_password') ?? '';
  return {
    clientId,
    clientSecret: keys.optional('client_secret'),
    clientAuthenticationMethod: method,
    clientAssertionKeystore: {
      path: keys.required('keystore_path', ' with private_key_jwt'),
      password,
      alias: keys.required('key_alias', ' with private_key_jwt'),
      keyPassword: keys.optional('key_password') ?? password,
      jwkSetUrl: keys.url('jwk_set_url', keys.required('jwk_set_url', ' with private_key_jwt'))!,
    },
  };
}

/** What every external provider has beyond its endpoints, with spec 2's defaults. */
function common(keys: Keys, key: string, baseUrl: string | null) {
  return {
    kind: 'external' as const,
    key,
    ...clientCredentials(keys),
    redirectUrl: keys.url('redirect_url') ?? (baseUrl ? `${baseUrl}/oauth2/code/${key}` : undefined),
    mappingClaim: keys.optional('mapping_claim') ?? 'email',
    scopes: keys.list('scopes', ['openid', 'email']),
    displayAlias: keys.optional('display_alias') ?? key,
    loginImage: keys.optional('login_image'),
    loginImagePadding: keys.optional('login_image_padding'),
    enableLogout: keys.flag('enable_logout', true),
    enablePkce: keys.flag('enable_pkce', false),
    authorizationGrantType: keys.oneOf('authorization_grant_type', ['authorization_code'], 'authorization_code'),
    extraRequestParameters: parseExtraRequestParameters(keys.optional('extra_request_parameters')),
    userInfoResponseType: keys.oneOf('user_info_response_type', ['json', 'jwt'] as const, 'json', (v) =>
      v.toLowerCase(),
    ),
    userInfoJwsAlgorithm: keys.oneOf('user_info_jws_algorithm', USER_INFO_JWS_ALGORITHMS, 'RS256'),
  };
}

function externalProvider(raw: OidcProviderConfig, baseUrl: string | null): ExternalProvider {
  const keys = new Keys(raw);
  const { id } = raw;
  if (id === 'idpa') return { ...common(keys, id, baseUrl), builtIn: 'idpa', ...IDPA, endSessionEndpoint: undefined };
  if (/^idpb\.\d+$/.test(id)) {
    const tenant = keys.required('tenant');
    // The tenant becomes part of URLs: a directory id (GUID) or a domain name, nothing that could change the path.
    if (!/^[A-Za-z0-9][A-Za-z0-9.-]*$/.test(tenant))
      throw new ProviderRejected(`tenant = ${tenant} must be a tenant id or domain name`);
    return { ...common(keys, id, baseUrl), builtIn: 'idpb', ...idpbEndpoints(tenant) };
  }
  if (RESERVED_IDS.includes(id))
    throw new ProviderRejected(
      `the id ${id} is reserved (idpa, idpb, idpc and platform cannot name a generic provider)`,
    );
  if (!/^[A-Za-z0-9]+$/.test(id)) throw new ProviderRejected(`the id ${id} must be alphanumeric`);
  const issuer = keys.url('issuer_uri');
  return {
    ...common(keys, id, baseUrl),
    builtIn: undefined,
    issuers: issuer ? [issuer] : [],
    authorizationUri: keys.requiredUrl('authorization_uri'),
    tokenUri: keys.requiredUrl('token_uri'),
    userInfoUri: keys.requiredUrl('user_info_uri'),
    jwkUri: keys.requiredUrl('jwk_uri'),
    endSessionEndpoint: keys.url('end_session_endpoint'),
  };
}

/** Built-ins first (idpa, then idpb by tenant number), then generic providers in the file's order. */
function rank(id: string): [number, number] {
  if (id === 'idpa') return [0, 0];
  const tenant = /^idpb\.(\d+)$/.exec(id);
  return tenant ? [1, Number(tenant[1])] : [2, 0];
}

function warnMappingClaim(log: ProviderLog, key: string, mappingClaim: string): void {
  if (!MAPPING_CLAIMS.includes(mappingClaim))
    log.warn(
      { provider: key, mappingClaim },
      `identity provider ${key}: mapping_claim ${mappingClaim} is neither email nor username; every token of it is refused with 'Invalid mapping claim'`,
    );
}

/** The providers of an instance configuration; each rejected provider is logged and left out. */
export function resolveProviders(
  config: Pick<InstanceConfig, 'server' | 'oauth2' | 'oidc'>,
  log: ProviderLog,
): ProviderRegistry {
  const baseUrl = config.server.baseUrl;
  const platform = config.oidc.providers.find((p) => p.id === 'platform');
  let internal: InternalProvider | undefined;
  if (config.oauth2.serverEnabled && baseUrl) {
    const keys = new Keys(platform ?? { id: 'platform' });
    internal = {
      kind: 'internal',
      key: INTERNAL_PROVIDER_KEY,
      issuer: baseUrl,
      clientId: keys.optional('client_id') ?? INTERNAL_PROVIDER_KEY,
      clientSecret: keys.optional('client_secret'),
      mappingClaim: keys.optional('mapping_claim') ?? 'username',
      serverUrl: (keys.optional('server_url') ?? baseUrl).replace(/\/+$/, ''),
    };
    warnMappingClaim(log, internal.key, internal.mappingClaim);
  }

  const external: ExternalProvider[] = [];
  const candidates = config.oidc.providers
    .filter((p) => p.id !== 'platform')
    .map((raw, order) => ({ raw, order }))
    .sort((a, b) => {
      const [ga, na] = rank(a.raw.id);
      const [gb, nb] = rank(b.raw.id);
      return ga - gb || na - nb || a.order - b.order;
    });
  for (const { raw } of candidates) {
    try {
      const provider = externalProvider(raw, baseUrl);
      if (internal && provider.issuers.includes(internal.issuer))
        throw new ProviderRejected(`its issuer ${internal.issuer} is this instance's own (server.base.url)`);
      external.push(provider);
      warnMappingClaim(log, provider.key, provider.mappingClaim);
      if (provider.issuers.length === 0)
        log.warn(
          { provider: provider.key },
          `identity provider ${provider.key} has no issuer_uri: its tokens are not accepted as bearer tokens`,
        );
      log.info({ provider: provider.key, issuer: provider.issuers[0] }, `identity provider ${provider.key} loaded`);
    } catch (err) {
      if (!(err instanceof ProviderRejected)) throw err;
      log.error(
        { provider: raw.id },
        `identity provider ${raw.id} rejected (keys oidc.provider.${raw.id}.*): ${err.message}`,
      );
    }
  }

  const all: Provider[] = [...(internal ? [internal] : []), ...external];
  const byKey = new Map(all.map((p) => [p.key, p]));
  const byIssuer = new Map<string, Provider[]>();
  for (const provider of all)
    for (const issuer of provider.kind === 'internal' ? [provider.issuer] : provider.issuers)
      byIssuer.set(issuer, [...(byIssuer.get(issuer) ?? []), provider]);
  return {
    internal,
    external,
    byKey: (key) => byKey.get(key),
    byIssuer: (issuer) => byIssuer.get(issuer) ?? [],
  };
}
