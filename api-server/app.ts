import { createRequire } from 'node:module';
import { createServer, type RequestListener } from 'node:http';
import Fastify, { type FastifyServerOptions } from 'fastify';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { pino, type Logger } from 'pino';
import { Registry } from 'prom-client';
import type { Cluster } from '../core/cluster/port.ts';
import type { InstanceConfig } from '../core/config/index.ts';
import { IMPLEMENTED_PROCESSES } from '../core/processes/implemented.ts';
import { contextPlugin, type VersionInfo } from './plugins/app/context.ts';
import { endpointsPlugin } from './plugins/app/endpoints.ts';
import { errorsPlugin } from './plugins/app/errors.ts';
import { htmlPagesPlugin } from './plugins/app/html-pages.ts';
import { metricsPlugin } from './plugins/app/metrics.ts';
import { readOnlyPlugin } from './plugins/app/read-only.ts';
import { requestIdOptions, requestIdPlugin } from './plugins/app/request-id.ts';
import { corsPlugin } from './plugins/external/cors.ts';
import { openApiPlugin } from './plugins/external/openapi.ts';
import { dataSourceRoutes } from './routes/data-sources/index.ts';
import { datasetRoutes } from './routes/datasets/index.ts';
import { featureRoutes } from './routes/features/index.ts';
import { ingestionRoutes } from './routes/ingestions/index.ts';
import { openeoRoutes } from './routes/openeo/index.ts';
import { loadProcessCatalogue, type ProcessCatalogueOptions } from './routes/openeo/process-catalogue.ts';
import { scheduleRoutes } from './routes/schedules/index.ts';
import { stacRoutes } from './routes/stac/index.ts';
import { storeRoutes } from './routes/stores/index.ts';
import { syncRoutes } from './routes/sync/index.ts';
import { systemRoutes } from './routes/system/index.ts';
import { cataloguePlugin } from './services/catalogue/plugin.ts';
import { filesPlugin } from './services/files/plugin.ts';
import { icechunkSnapshotsPlugin } from './services/icechunk/plugin.ts';
import { runsPlugin } from './services/runs/plugin.ts';
import { servedVersionsPlugin, zarrFastPathPlugin, zarrKeysPlugin } from './services/zarr/plugin.ts';
import type { ZarrFastPath } from './services/zarr/zarr-fast-path.ts';

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
  /** Whether existing `/zarr` keys are answered past fastify (`services/zarr/zarr-fast-path.ts`); on unless false. */
  zarrFastPath?: boolean;
}

const require = createRequire(import.meta.url);

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

/**
 * Builds the API server (without listening): the tests drive it with `inject`, `server.ts` listens. This only
 * wires: the app-wide plugins (`plugins/`), then the services (`services/`, each a named plugin that states what
 * it needs), then the route areas (`routes/<area>/`).
 */
export async function buildApp(options: BuildAppOptions) {
  let fastPath: ZarrFastPath | undefined;
  const app = Fastify({
    ...requestIdOptions,
    return503OnClosing: true,
    serverFactory: serverFactory(() => fastPath),
    loggerInstance: options.logger || pino({ level: 'silent' }),
  }).withTypeProvider<ZodTypeProvider>();

  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);

  // The route list and the pages' Vary come first, to see every route; the OpenAPI description must precede the
  // routes too.
  await app.register(endpointsPlugin);
  await app.register(htmlPagesPlugin);
  await app.register(requestIdPlugin);
  await app.register(contextPlugin, {
    cluster: options.cluster,
    config: options.config,
    registry: options.registry ?? new Registry(),
    version: versionInfo(),
    namespace: options.namespace ?? 'default',
    healthCacheMs: options.healthCacheMs ?? 1_000,
    storageRoot: options.storageRoot,
  });
  await app.register(errorsPlugin);
  // CORS before the read-only refusal, so that a refused cross-origin write still carries its CORS headers.
  await app.register(corsPlugin);
  await app.register(readOnlyPlugin);
  await app.register(metricsPlugin);
  await app.register(openApiPlugin);

  await app.register(filesPlugin);
  await app.register(icechunkSnapshotsPlugin);
  await app.register(zarrKeysPlugin);
  await app.register(runsPlugin);
  await app.register(cataloguePlugin);
  if (options.zarrFastPath !== false) {
    await app.register(servedVersionsPlugin);
    await app.register(zarrFastPathPlugin);
    fastPath = app.zarrFastPath;
  }

  await app.register(systemRoutes);
  await app.register(dataSourceRoutes);
  await app.register(datasetRoutes);
  await app.register(storeRoutes);
  await app.register(syncRoutes);
  await app.register(scheduleRoutes);
  await app.register(ingestionRoutes);
  await app.register(featureRoutes);
  await app.register(stacRoutes);
  await app.register(openeoRoutes, {
    processes: await loadProcessCatalogue(options.processes ?? { implemented: IMPLEMENTED_PROCESSES }),
  });
  return app;
}
