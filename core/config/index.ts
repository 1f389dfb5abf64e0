import { readFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { z } from 'zod';
import { isLogModule, LOG_LEVELS, LOG_MODULES, type LogLevel } from './log-modules.ts';
import { DEFAULT_VERSION_GRACE_SECONDS } from '../resources/dataset/retention.ts';
import { closestKey, closestOf, isKnownKey, notBuiltFeature } from './keys.ts';
import { parseProperties, type PropertyEntry } from './properties.ts';

/** A configuration the process must not start with; names the file, line and key. */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

const MB = 1024 * 1024;
/** Spec 3 caps every log file at 50 MB, whatever `logging.file.max_size` says (DESIGN.md §6). */
export const LOG_FILE_CAP_BYTES = 50 * MB;

const onOff = z.string().transform((v, ctx) => {
  const value = v.toLowerCase();
  if (['on', 'true', 'yes'].includes(value)) return true;
  if (['off', 'false', 'no'].includes(value)) return false;
  ctx.addIssue({ code: 'custom', message: 'must be on or off' });
  return z.NEVER;
});

const size = z.string().transform((v, ctx) => {
  const match = /^(\d+)\s*(B|KB|MB|GB)?$/i.exec(v);
  if (!match) {
    ctx.addIssue({ code: 'custom', message: 'must be a size such as 100MB, 512KB or 1GB' });
    return z.NEVER;
  }
  const unit = { B: 1, KB: 1024, MB, GB: 1024 * MB }[(match[2] ?? 'B').toUpperCase() as 'B' | 'KB' | 'MB' | 'GB'];
  return Number(match[1]) * unit;
});

const url = z.string().refine((v) => /^https?:\/\/[^\s/]+/.test(v), { message: 'must be an absolute http(s) URL' });

/** A basemap's XYZ URL template: absolute http(s), with `{z}`, `{x}` and `{y}` (and `{s}` for subdomains). */
const tileTemplate = url.refine((v) => ['{z}', '{x}', '{y}'].every((p) => v.includes(p)), {
  message: 'must be a tile URL template with {z}, {x} and {y}',
});

const bbox = z.string().transform((v, ctx) => {
  const parts = v.split(',').map((p) => Number(p.trim()));
  if (parts.length !== 4 || parts.some((n) => !Number.isFinite(n))) {
    ctx.addIssue({ code: 'custom', message: 'must be 4 numbers: xmin,ymin,xmax,ymax' });
    return z.NEVER;
  }
  const [xmin, ymin, xmax, ymax] = parts as [number, number, number, number];
  if (xmin >= xmax || ymin >= ymax) {
    ctx.addIssue({ code: 'custom', message: 'needs xmin < xmax and ymin < ymax' });
    return z.NEVER;
  }
  return [xmin, ymin, xmax, ymax] as [number, number, number, number];
});

const level = z
  .string()
  .transform((v) => v.toUpperCase())
  .pipe(z.enum(LOG_LEVELS, { message: 'must be DEBUG, INFO, WARN or ERROR' }));

const nonNegativeInt = z
  .string()
  .regex(/^\d+$/, { message: 'must be a whole number, 0 or more' })
  .transform((v) => Number(v));

const positiveInt = z
  .string()
  .regex(/^[1-9]\d*$/, { message: 'must be a whole number, 1 or more' })
  .transform((v) => Number(v));

const positiveSeconds = z
  .string()
  .regex(/^[1-9]\d*$/, { message: 'must be a whole number of seconds, 1 or more' })
  .transform((v) => Number(v));

const LEVEL_PREFIX = 'logging.level.';

/** Why a `logging.level.<module>` key names no module, or undefined when it names one. */
function unknownModule(key: string): string | undefined {
  const module = key.slice(LEVEL_PREFIX.length);
  if (isLogModule(module)) return undefined;
  const modules = Object.keys(LOG_MODULES);
  return `no module is named ${module}; did you mean ${closestOf(module, modules)}? Modules: ${modules.join(', ')}`;
}

/** How each exact key's value is read. */
const valueSchemas: Record<string, z.ZodType> = {
  'instance.bbox': bbox,
  read_only: onOff,
  'server.base.url': url,
  'server.proxy.trusted': onOff,
  'server.timeout.headers': positiveSeconds,
  'server.timeout.request': positiveSeconds,
  'server.timeout.keep_alive': positiveSeconds,
  'server.timeout.shutdown': positiveSeconds,
  'oauth2.server.enabled': onOff,
  'oauth2.server.jwt.keystore.generate-if-missing': onOff,
  'oauth2.server.dcr.refresh-token-ttl': positiveSeconds,
  'oidc.oauth2.login.enabled': onOff,
  'security.anonymous_read': onOff,
  'oidc.jwt.token.authentication.enabled': onOff,
  'oidc.logout.redirect_url': url,
  'linked_accounts.enabled': onOff,
  'linked_accounts.logout_url': url,
  'linked_accounts.relogin_url': url,
  'logging.file.max_size': size,
  'logging.file.max_archives': nonNegativeInt,
  'processing.sync.timeout': positiveSeconds,
  'processing.sync.max_cells': positiveInt,
  'processing.sync.max_read_cells': positiveInt,
  'processing.sync.max_output_size': size,
  'processing.sync.max_memory': size,
  'processing.sync.heap_size': size,
  'processing.sync.young_generation_size': size,
  'processing.sync.concurrency': positiveInt,
  'processing.worker_threads': nonNegativeInt,
  'changelog.aggregate': onOff,
  'datasets.version_grace_period': positiveSeconds,
  'map.basemap.url': tileTemplate,
};

/**
 * The raw keys of one `oidc.provider.<id>.*` block; core/auth/federation/providers.ts judges them (a provider with
 * a bad value is left out with a log line rather than stopping startup, as spec 2 says).
 */
export interface OidcProviderConfig {
  id: string;
  [key: string]: string;
}

export interface InstanceConfig {
  source: string;
  instance: { name: string; description: string | null; bbox: [number, number, number, number]; crs: string };
  storageRoot: string | null;
  readOnly: boolean;
  server: {
    baseUrl: string | null;
    corsAllowedOrigins: string[];
    /** Whether the reverse proxy's X-Forwarded-Proto is believed (the Secure flag of cookies). */
    proxyTrusted: boolean;
    /**
     * How long a client may take to send its headers, its whole request, and between two requests; and how long
     * responses in flight may take to finish once the process is asked to stop (ms).
     */
    timeouts: { headersMs: number; requestMs: number; keepAliveMs: number; shutdownMs: number };
  };
  oauth2: {
    serverEnabled: boolean;
    keystore: {
      path: string | null;
      alias: string | null;
      password: string | null;
      /** Password of the key entry; null falls back to the keystore password. */
      keyPassword: string | null;
      generateIfMissing: boolean;
    };
    /** Refresh-token lifetime of clients registered from then on through dynamic client registration. */
    dcrRefreshTokenTtlSeconds: number;
  };
  security: {
    /** Once authentication is configured: whether reads stay open to anonymous callers. */
    anonymousRead: boolean;
  };
  oidc: {
    loginEnabled: boolean;
    jwtTokenAuthenticationEnabled: boolean;
    logoutRedirectUrl: string | null;
    providers: OidcProviderConfig[];
  };
  linkedAccounts: { enabled: boolean; logoutUrl: string | null; reloginUrl: string | null };
  logging: {
    maxSizeBytes: number;
    /** The size at which a log file rolls: the smaller of max_size and the 50 MB cap. */
    rollSizeBytes: number;
    maxArchives: number;
    /** By module (core/config/log-modules.ts). */
    levels: Partial<Record<string, LogLevel>>;
  };
  /**
   * Limits of a synchronous openEO run (`POST /result`): its wall time, the cells it may hold or return at once,
   * the cells it may read from the stores, and the size of its answer.
   */
  processing: {
    sync: {
      timeoutMs: number;
      maxCells: number;
      maxReadCells: number;
      maxOutputBytes: number;
      /** Bytes the arrays and materialized cubes of one run may hold together (core/processing/memory-budget.ts). */
      maxMemoryBytes: number;
      /** V8 limits of the worker thread a run executes in: old generation (heap) and young generation, in bytes. */
      heapBytes: number;
      youngGenerationBytes: number;
      /** Runs executing at once; others wait for a free one, within their wall time. */
      concurrency: number;
    };
    /** Worker threads of the engine's CPU-heavy work (core/workers/pool.ts); 0 runs it on the main thread. */
    workerThreads: number;
  };
  changelog: { aggregate: boolean };
  /** How long a dataset version stays readable after it stopped being current, before retention may remove it. */
  datasets: { versionGraceMs: number };
  /** The map viewer's optional basemap, fetched by browsers from its own server (none by default). */
  map: { basemap: { url: string; attribution: string; origin: string } | null };
  /** Warnings to log at startup: unknown keys with the closest valid key, a missing server.base.url. */
  warnings: string[];
}

/** Default extent when none is configured: the whole world, so a fresh `make run` still answers /extent. */
const WORLD: [number, number, number, number] = [-180, -90, 180, 90];

export function parseInstanceConfig(text: string, source: string): InstanceConfig {
  const entries = parseProperties(text);
  const values = new Map<string, { value: unknown; entry: PropertyEntry }>();
  const errors: string[] = [];
  const warnings: string[] = [];
  for (const entry of entries) {
    if (!isKnownKey(entry.key)) {
      warnings.push(
        `Unknown configuration key "${entry.key}" at ${source}:${entry.line}; did you mean "${closestKey(entry.key)}"?`,
      );
      continue;
    }
    const levelKey = entry.key.startsWith(LEVEL_PREFIX);
    const schema = levelKey ? level : (valueSchemas[entry.key] ?? z.string());
    const parsed = schema.safeParse(entry.value);
    const refused = parsed.success
      ? levelKey
        ? unknownModule(entry.key)
        : undefined
      : parsed.error.issues[0]!.message;
    if (refused === undefined) values.set(entry.key, { value: parsed.data, entry });
    else errors.push(`${source}:${entry.line}: ${entry.key} = ${entry.value}: ${refused}`);
    const feature = notBuiltFeature(entry.key);
    if (feature)
      errors.push(
        `${source}:${entry.line}: ${entry.key} configures ${feature}, which this version of Stratus does not have yet; remove the key`,
      );
  }
  const get = <T>(key: string, fallback: T): T => (values.has(key) ? (values.get(key)!.value as T) : fallback);
  const text_ = (key: string): string | null => {
    const v = get<string>(key, '');
    return v === '' ? null : v;
  };

  const providers = new Map<string, OidcProviderConfig>();
  const levels: InstanceConfig['logging']['levels'] = {};
  for (const [key, { value }] of values) {
    const provider = /^oidc\.provider\.(idpb\.\d+|[^.]+)\.([^.]+)$/.exec(key);
    if (provider) {
      const id = provider[1]!;
      const record = providers.get(id) ?? { id };
      record[provider[2]!] = String(value);
      providers.set(id, record);
    }
    if (key.startsWith(LEVEL_PREFIX)) levels[key.slice(LEVEL_PREFIX.length)] = value as LogLevel;
  }

  const baseUrl = text_('server.base.url');
  const serverEnabled = get('oauth2.server.enabled', false);
  if (serverEnabled && !baseUrl) {
    errors.push(`${source}: oauth2.server.enabled = on requires server.base.url (the issuer URI) to be set`);
  }
  if (get('oidc.oauth2.login.enabled', false) && !baseUrl) {
    // The providers send the browser back to this URL, and the sign-in state names it as its issuer.
    errors.push(`${source}: oidc.oauth2.login.enabled = on requires server.base.url (the login page's address)`);
  }
  if (text_('oauth2.server.jwt.keystore.path') && !text_('oauth2.server.jwt.keystore.alias')) {
    errors.push(`${source}: oauth2.server.jwt.keystore.path is set: oauth2.server.jwt.keystore.alias is required`);
  }
  const headersSeconds = get('server.timeout.headers', 30);
  const requestSeconds = get('server.timeout.request', 300);
  if (headersSeconds > requestSeconds) {
    errors.push(
      `${source}: server.timeout.headers (${headersSeconds}) must not exceed server.timeout.request (${requestSeconds}): the headers are part of the request`,
    );
  }
  if (!baseUrl) warnings.push('server.base.url is not set: links and issuer URLs are derived from each request');
  // One line, as every start-up refusal is (docs/configuration.md): each problem names its line and what it needs.
  if (errors.length > 0) throw new ConfigError(`invalid instance configuration: ${errors.join('; ')}`);

  const maxSizeBytes = get('logging.file.max_size', 100 * MB);
  const syncHeapBytes = get('processing.sync.heap_size', 2048 * MB);
  return {
    source,
    instance: {
      name: get('instance.name', 'Stratus'),
      description: text_('instance.description'),
      bbox: get('instance.bbox', WORLD),
      crs: get('instance.crs', 'EPSG:4326'),
    },
    storageRoot: text_('storage.root'),
    readOnly: get('read_only', false),
    server: {
      baseUrl: baseUrl?.replace(/\/+$/, '') ?? null,
      corsAllowedOrigins: (text_('server.cors.allowed_origins') ?? '*')
        .split(',')
        .map((o) => o.trim())
        .filter(Boolean),
      proxyTrusted: get('server.proxy.trusted', false),
      timeouts: {
        headersMs: headersSeconds * 1000,
        requestMs: requestSeconds * 1000,
        keepAliveMs: get('server.timeout.keep_alive', 5) * 1000,
        // Fits in the 30 s Kubernetes gives a pod to stop, after the chart's preStop pause (docs/kubernetes.md).
        shutdownMs: get('server.timeout.shutdown', 20) * 1000,
      },
    },
    oauth2: {
      serverEnabled,
      keystore: {
        path: text_('oauth2.server.jwt.keystore.path'),
        alias: text_('oauth2.server.jwt.keystore.alias'),
        password: text_('oauth2.server.jwt.keystore.password'),
        keyPassword: text_('oauth2.server.jwt.keystore.key-password'),
        generateIfMissing: get('oauth2.server.jwt.keystore.generate-if-missing', true),
      },
      dcrRefreshTokenTtlSeconds: get('oauth2.server.dcr.refresh-token-ttl', 30 * 24 * 3600),
    },
    security: { anonymousRead: get('security.anonymous_read', true) },
    oidc: {
      loginEnabled: get('oidc.oauth2.login.enabled', false),
      jwtTokenAuthenticationEnabled: get('oidc.jwt.token.authentication.enabled', false),
      logoutRedirectUrl: text_('oidc.logout.redirect_url'),
      providers: [...providers.values()],
    },
    linkedAccounts: {
      enabled: get('linked_accounts.enabled', false),
      logoutUrl: text_('linked_accounts.logout_url'),
      reloginUrl: text_('linked_accounts.relogin_url'),
    },
    logging: {
      maxSizeBytes,
      rollSizeBytes: Math.min(maxSizeBytes, LOG_FILE_CAP_BYTES),
      maxArchives: get('logging.file.max_archives', 0),
      levels,
    },
    processing: {
      sync: {
        timeoutMs: get('processing.sync.timeout', 60) * 1000,
        maxCells: get('processing.sync.max_cells', 20_000_000),
        maxReadCells: get('processing.sync.max_read_cells', 1_000_000_000),
        maxOutputBytes: get('processing.sync.max_output_size', 100 * MB),
        // Half the heap: a node's result and the copy the next node makes of it fit together under V8's limit.
        maxMemoryBytes: get('processing.sync.max_memory', Math.floor(syncHeapBytes / 2)),
        heapBytes: syncHeapBytes,
        youngGenerationBytes: get('processing.sync.young_generation_size', 64 * MB),
        concurrency: get('processing.sync.concurrency', 2),
      },
      workerThreads: get('processing.worker_threads', availableParallelism()),
    },
    changelog: { aggregate: get('changelog.aggregate', true) },
    datasets: { versionGraceMs: get('datasets.version_grace_period', DEFAULT_VERSION_GRACE_SECONDS) * 1000 },
    map: { basemap: basemapOf(text_('map.basemap.url'), text_('map.basemap.attribution')) },
    warnings,
  };
}

/** The origin the pages' policy lets images come from: `{s}` subdomains become a wildcard. */
function basemapOf(template: string | null, attribution: string | null): InstanceConfig['map']['basemap'] {
  if (!template) return null;
  const origin = /^https?:\/\/[^/]+/.exec(template)![0].replace('{s}', '*');
  return { url: template, attribution: attribution ?? '', origin };
}

/** Reads the file at `path`; with no path, the defaults. */
export async function loadInstanceConfig(path?: string): Promise<InstanceConfig> {
  if (!path) return parseInstanceConfig('', '(defaults)');
  const text = await readFile(path, 'utf8').catch((err: NodeJS.ErrnoException) => {
    throw new ConfigError(
      `cannot read the instance configuration ${path} (${err.code ?? err.message}): name a readable file with --config or STRATUS_CONFIG`,
    );
  });
  return parseInstanceConfig(text, path);
}

/**
 * Whether any authentication is configured (DESIGN.md §5): then writes need a user with the route's authority.
 * Without, the instance is open and anonymous (spec 1).
 */
export function authenticationConfigured(config: Pick<InstanceConfig, 'oauth2' | 'oidc'>): boolean {
  return config.oauth2.serverEnabled || config.oidc.jwtTokenAuthenticationEnabled || config.oidc.loginEnabled;
}
