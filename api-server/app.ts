import { createRequire } from 'node:module';
import Fastify from 'fastify';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { pino, type Logger } from 'pino';
import { Registry } from 'prom-client';
import type { Cluster } from '../core/cluster/port.ts';
import type { InstanceConfig } from '../core/config/index.ts';
import { processDescriptions } from '../core/processing/index.ts';
import { clientErrorHandler, serverFactory } from './http-server.ts';
import { accessPlugin, anonymousReads } from './plugins/app/authentication/access.ts';
import { authenticationPlugin } from './plugins/app/authentication/index.ts';
import { contextPlugin, type VersionInfo } from './plugins/app/context.ts';
import { endpointsPlugin } from './plugins/app/endpoints.ts';
import { drainingPlugin } from './plugins/app/draining.ts';
import { errorsPlugin, frameworkErrors } from './plugins/app/errors.ts';
import { htmlPagesPlugin } from './plugins/app/html-pages.ts';
import { logContextPlugin } from './plugins/app/log-context.ts';
import { metricsPlugin } from './plugins/app/metrics.ts';
import { readOnlyPlugin } from './plugins/app/read-only.ts';
import { requestIdOptions, requestIdPlugin } from './plugins/app/request-id.ts';
import { singleHeadersPlugin } from './plugins/app/single-headers.ts';
import { corsPlugin } from './plugins/external/cors.ts';
import { openApiPlugin } from './plugins/external/openapi.ts';
import { analyticsRoutes } from './routes/analytics/index.ts';
import { assetRoutes } from './routes/assets/index.ts';
import { authAdminRoutes } from './routes/auth-admin/index.ts';
import { dataSourceRoutes } from './routes/data-sources/index.ts';
import { datasetRoutes } from './routes/datasets/index.ts';
import { exportRoutes } from './routes/exports/index.ts';
import { featureRoutes } from './routes/features/index.ts';
import { ingestionRoutes } from './routes/ingestions/index.ts';
import { loginRoutes } from './routes/login/index.ts';
import { mapRoutes } from './routes/map/index.ts';
import { oauth2Routes } from './routes/oauth2/index.ts';
import { oauth2ClientRoutes } from './routes/oauth2-clients/index.ts';
import { openEoRoutes } from './routes/openeo/index.ts';
import { processingRoutes } from './routes/openeo/result.ts';
import { loadProcessCatalogue, type ProcessCatalogueOptions } from './routes/openeo/process-catalogue.ts';
import { scheduleRoutes } from './routes/schedules/index.ts';
import { stacRoutes } from './routes/stac/index.ts';
import { storeRoutes } from './routes/stores/index.ts';
import { syncRoutes } from './routes/sync/index.ts';
import { systemRoutes } from './routes/system/index.ts';
import { trackerRoutes } from './routes/tracker/index.ts';
import { metadataRoutes } from './routes/metadata/index.ts';
import { cataloguePlugin } from './services/catalogue/plugin.ts';
import { filesPlugin } from './services/files/plugin.ts';
import { icechunkSnapshotsPlugin } from './services/icechunk/plugin.ts';
import { resourceCachesPlugin } from './services/resources/plugin.ts';
import { runsPlugin } from './services/runs/plugin.ts';
import { servedVersionsPlugin, zarrFastPathPlugin, zarrKeysPlugin } from './services/zarr/plugin.ts';
import type { ZarrFastPath } from './services/zarr/zarr-fast-path.ts';
import { STRATUS_VERSION } from '../core/version.ts';

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
  /** The openEO processes to serve; by default those the engine implements, with the descriptions it serves. */
  processes?: ProcessCatalogueOptions;
  /** Whether existing `/zarr` keys are answered past fastify (`services/zarr/zarr-fast-path.ts`); on unless false. */
  zarrFastPath?: boolean;
  /** The clock relative periods are read against (`/analytics`); the system clock by default. */
  now?: () => Date;
}

const require = createRequire(import.meta.url);

function versionInfo(): VersionInfo {
  const fastify = (require('fastify/package.json') as { version: string }).version;
  return { app: STRATUS_VERSION, node: process.versions.node, fastify };
}

/**
 * Builds the API server (without listening): the tests drive it with `inject`, `server.ts` listens. This only
 * wires: the app-wide plugins (`plugins/`), then the services (`services/`, each a named plugin that states what
 * it needs), then the route areas (`routes/<area>/`).
 */
export async function buildApp(options: BuildAppOptions) {
  let fastPath: ZarrFastPath | undefined;
  const app = Fastify({
    ...requestIdOptions,
    // A closing server's 503 is the catalogue's (`plugins/app/draining.ts`).
    return503OnClosing: false,
    serverFactory: serverFactory(() => fastPath, options.config.server.timeouts),
    clientErrorHandler,
    frameworkErrors,
    loggerInstance: options.logger || pino({ level: 'silent' }),
  }).withTypeProvider<ZodTypeProvider>();

  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);

  // The route list and the pages' Vary come first, to see every route; the OpenAPI description must precede the
  // routes too.
  await app.register(endpointsPlugin);
  await app.register(htmlPagesPlugin);
  await app.register(requestIdPlugin);
  await app.register(logContextPlugin);
  // The caches come before the context: its cluster port is theirs, so that every write of the API server reaches
  // them (read-your-writes of the list routes).
  await app.register(resourceCachesPlugin, { cluster: options.cluster, namespace: options.namespace ?? 'default' });
  await app.register(contextPlugin, {
    cluster: app.resourceCaches.cluster,
    config: options.config,
    registry: options.registry ?? new Registry(),
    version: versionInfo(),
    namespace: options.namespace ?? 'default',
    healthCacheMs: options.healthCacheMs ?? 1_000,
    storageRoot: options.storageRoot,
  });
  await app.register(errorsPlugin);
  await app.register(singleHeadersPlugin);
  await app.register(drainingPlugin);
  // CORS before the read-only refusal, so that a refused cross-origin write still carries its CORS headers.
  await app.register(corsPlugin);
  await app.register(authenticationPlugin);
  await app.register(accessPlugin);
  await app.register(readOnlyPlugin);
  await app.register(metricsPlugin);
  await app.register(openApiPlugin);

  await app.register(filesPlugin);
  await app.register(icechunkSnapshotsPlugin);
  await app.register(zarrKeysPlugin);
  await app.register(runsPlugin);
  await app.register(cataloguePlugin);
  // The fast path answers before any hook runs: only where anyone may read.
  if (options.zarrFastPath !== false && anonymousReads(options.config)) {
    await app.register(servedVersionsPlugin);
    await app.register(zarrFastPathPlugin);
    fastPath = app.zarrFastPath;
  }

  await app.register(oauth2Routes);
  await app.register(oauth2ClientRoutes);
  await app.register(loginRoutes);
  await app.register(authAdminRoutes);
  await app.register(systemRoutes);
  await app.register(dataSourceRoutes);
  await app.register(datasetRoutes);
  await app.register(storeRoutes);
  await app.register(syncRoutes);
  await app.register(scheduleRoutes);
  await app.register(ingestionRoutes);
  await app.register(featureRoutes);
  await app.register(exportRoutes);
  await app.register(analyticsRoutes, { now: options.now ?? (() => new Date()) });
  await app.register(stacRoutes);
  await app.register(openEoRoutes, {
    processes: options.processes ? await loadProcessCatalogue(options.processes) : processDescriptions(),
  });
  await app.register(processingRoutes);
  await app.register(trackerRoutes);
  await app.register(metadataRoutes);
  await app.register(mapRoutes);
  await app.register(assetRoutes);
  return app;
}
