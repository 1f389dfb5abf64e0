import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import cors from '@fastify/cors';
import { createServer, type IncomingMessage, type RequestListener } from 'node:http';
import Fastify, { LogController, type FastifyServerOptions } from 'fastify';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { pino, type Logger } from 'pino';
import { Registry } from 'prom-client';
import type { Cluster } from '../core/cluster/port.ts';
import type { InstanceConfig } from '../core/config/index.ts';
import { IMPLEMENTED_PROCESSES } from '../core/processes/implemented.ts';
import { contextPlugin, type VersionInfo } from './plugins/app/context.ts';
import { errorsPlugin } from './plugins/app/errors.ts';
import { metricsPlugin } from './plugins/app/metrics.ts';
import { readOnlyPlugin } from './plugins/app/read-only.ts';
import { dataSourceRoutes } from './routes/data-sources/index.ts';
import { datasetRoutes } from './routes/datasets/index.ts';
import { featureRoutes } from './routes/features/index.ts';
import { ingestionRoutes } from './routes/ingestions/index.ts';
import { openApiPlugin } from './plugins/external/openapi.ts';
import { ImmutableFileCache } from './services/files/file-cache.ts';
import { icechunkRoutes } from './routes/stores/icechunk.ts';
import { IcechunkSnapshots } from './services/icechunk/icechunk-snapshots.ts';
import { zarrRoutes } from './routes/stores/zarr.ts';
import { ZarrKeys } from './services/zarr/zarr-keys.ts';
import { ZARR_ROUTE, zarrFastPath, type ZarrFastPath } from './services/zarr/zarr-fast-path.ts';
import { ServedVersions } from './services/zarr/served-versions.ts';
import { scheduleRoutes } from './routes/schedules/index.ts';
import { syncRoutes } from './routes/sync/index.ts';
import { openeoRoutes } from './routes/openeo/index.ts';
import { loadProcessCatalogue, type ProcessCatalogueOptions } from './routes/openeo/process-catalogue.ts';
import { stacRoutes } from './routes/stac/index.ts';
import { systemRoutes } from './routes/system/index.ts';

export interface BuildAppOptions {
  cluster: Cluster;
  config: InstanceConfig;
  /** Shared with the operator in embedded mode so `/metrics` shows both. */
  registry?: Registry;
  /** A pino logger; without one the app does not log (tests, benchmarks). */
  logger?: Logger | false;
  namespace?: string;
  /** Root of the mounted stores; the operator's workers write there. */
  storageRoot: string;
  /** How long one health probe of the resource store answers `/health` (default 1 s). */
  healthCacheMs?: number;
  /** The openEO processes to serve; by default those the engine implements, which need no descriptions today. */
  processes?: ProcessCatalogueOptions;
  /** Whether existing `/zarr` keys are answered past fastify (`zarr-fast-path.ts`); on unless false. */
  zarrFastPath?: boolean;
}

export interface Endpoint {
  path: string;
  methods: string[];
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Every documented route in openEO's `{param}` syntax, for the capabilities document. */
    endpoints: Endpoint[];
  }
}

const require = createRequire(import.meta.url);
const REQUEST_ID = /^[A-Za-z0-9]{1,64}$/;
const REQUEST_ID_LOG_LABEL = 'xRequestID';
/** openEO: the response headers a browser client may read. */
const CORS_EXPOSED_HEADERS = ['Location', 'OpenEO-Identifier', 'X-Request-ID', 'OpenEO-Costs', 'Link'];

// Spec 3: the request id is the client's X-Request-ID when alphanumeric, else a fresh one.
function requestIdOf(req: IncomingMessage): string {
  const sent = req.headers['x-request-id'];
  return typeof sent === 'string' && REQUEST_ID.test(sent) ? sent : randomUUID().replace(/-/g, '');
}

/** The logger of one request: its id, and the session (none yet). */
function requestLogger(logger: Logger, requestId: string): Logger {
  return logger.child({ [REQUEST_ID_LOG_LABEL]: requestId, sessionId: '' });
}

/**
 * The HTTP server: requests the `/zarr` fast path claims are answered there (or handed on when it declines), all
 * others go straight to fastify. Timeouts are fastify's own defaults, which it sets only on servers it creates.
 */
function serverFactory(fastPath: () => ZarrFastPath | undefined) {
  return (handler: RequestListener, options: FastifyServerOptions) => {
    const server = createServer((request, response) => {
      const path = fastPath();
      const claim = path?.claims(request);
      if (!claim) return handler(request, response);
      const served = path!.serve(request, response, claim);
      if (served === false) handler(request, response);
      else if (served !== true)
        void served.then((done) => {
          if (!done) handler(request, response);
        });
    });
    server.keepAliveTimeout = options.keepAliveTimeout!;
    server.requestTimeout = options.requestTimeout!;
    server.setTimeout(options.connectionTimeout!);
    return server;
  };
}

function versionInfo(): VersionInfo {
  const app = (require('../package.json') as { version: string }).version;
  const fastify = (require('fastify/package.json') as { version: string }).version;
  return { app, node: process.versions.node, fastify };
}

/** Builds the API server (without listening): the tests drive it with `inject`, `server.ts` listens. */
export async function buildApp(options: BuildAppOptions) {
  let fastPath: ZarrFastPath | undefined;
  const serverOptions = {
    genReqId: requestIdOf,
    logController: new LogController({ requestIdLogLabel: REQUEST_ID_LOG_LABEL }),
    childLoggerFactory: ((logger, bindings, childOptions) =>
      logger.child({ ...bindings, sessionId: '' }, childOptions)) satisfies FastifyServerOptions['childLoggerFactory'],
    return503OnClosing: true,
    serverFactory: serverFactory(() => fastPath),
  };
  const app = Fastify({
    ...serverOptions,
    loggerInstance: options.logger || pino({ level: 'silent' }),
  }).withTypeProvider<ZodTypeProvider>();

  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);

  const endpoints: Endpoint[] = [];
  app.decorate('endpoints', endpoints);
  app.addHook('onRoute', (route) => {
    const hidden = (route.schema as { hide?: boolean } | undefined)?.hide;
    if (hidden || route.url.startsWith('/docs')) return;
    const path = route.url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
    const methods = (Array.isArray(route.method) ? route.method : [route.method]).filter(
      (m) => m !== 'HEAD' && m !== 'OPTIONS',
    );
    const known = endpoints.find((e) => e.path === path);
    if (known) known.methods.push(...methods.filter((m) => !known.methods.includes(m)));
    else if (methods.length > 0) endpoints.push({ path, methods: [...methods] });
  });

  app.addHook('onSend', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });

  const context = {
    cluster: options.cluster,
    config: options.config,
    registry: options.registry ?? new Registry(),
    version: versionInfo(),
    namespace: options.namespace ?? 'default',
    healthCacheMs: options.healthCacheMs ?? 1_000,
    storageRoot: options.storageRoot,
    files: new ImmutableFileCache(),
    icechunk: new IcechunkSnapshots(),
  };
  const zarrKeys = new ZarrKeys(context);
  await app.register(contextPlugin, context);
  await app.register(errorsPlugin);
  const origins = options.config.server.corsAllowedOrigins;
  await app.register(cors, {
    origin: origins.includes('*') ? true : origins,
    methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
    exposedHeaders: CORS_EXPOSED_HEADERS,
    // openEO: OPTIONS answers 204 with the CORS headers on every route, preflight or not.
    strictPreflight: false,
  });
  await app.register(readOnlyPlugin);
  await app.register(metricsPlugin);
  await app.register(openApiPlugin);
  await app.register(systemRoutes);
  await app.register(dataSourceRoutes);
  await app.register(datasetRoutes);
  await app.register(zarrRoutes, { keys: zarrKeys });
  await app.register(icechunkRoutes);
  await app.register(syncRoutes);
  await app.register(scheduleRoutes);
  await app.register(ingestionRoutes);
  await app.register(featureRoutes);
  await app.register(stacRoutes);
  await app.register(openeoRoutes, {
    processes: await loadProcessCatalogue(options.processes ?? { implemented: IMPLEMENTED_PROCESSES }),
  });
  if (options.zarrFastPath !== false) {
    const versions = new ServedVersions({ ...context, logger: app.log as Logger });
    let closing = false;
    app.addHook('preClose', async () => {
      closing = true;
    });
    app.addHook('onClose', () => versions.stop());
    fastPath = zarrFastPath({
      keys: zarrKeys,
      versions,
      // What the CORS plugin writes on a request without Origin (the only ones the fast path takes).
      headers: { 'access-control-expose-headers': CORS_EXPOSED_HEADERS.join(', '), vary: 'Origin' },
      requestId: requestIdOf,
      log: app.log as Logger,
      requestLog: requestLogger,
      observe: (method, statusCode, seconds) => app.observeRequest(method, ZARR_ROUTE, statusCode, seconds),
      closing: () => closing,
    });
  }
  return app;
}
