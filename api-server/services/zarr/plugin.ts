import fp from 'fastify-plugin';
import { datasetKind, type Dataset } from '../../../core/resources/dataset/schema.ts';
import type { Logger } from 'pino';
import { requestIdOf, requestLogger } from '../../plugins/app/log-context.ts';
import { CORS_HEADERS_WITHOUT_ORIGIN } from '../../plugins/external/cors.ts';
import { ServedVersions } from './served-versions.ts';
import { ZARR_ROUTE, zarrFastPath, type ZarrFastPath } from './zarr-fast-path.ts';
import { ZarrKeys } from './zarr-keys.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** The keys of datasets' current Zarr versions, for the `/zarr` route and its fast path (`zarr-keys.ts`). */
    zarrKeys: ZarrKeys;
    /** The served version of each dataset, from the Dataset cache (`served-versions.ts`); only with the fast path. */
    servedVersions: ServedVersions;
    /** Answers existing `/zarr` keys in front of fastify (`zarr-fast-path.ts`); the HTTP server calls it. */
    zarrFastPath: ZarrFastPath;
  }
}

export const zarrKeysPlugin = fp(
  async (app) => {
    const { cluster, namespace, storageRoot } = app.stratus;
    app.decorate(
      'zarrKeys',
      new ZarrKeys({ cluster, namespace, storageRoot, files: app.files, icechunk: app.icechunkSnapshots }),
    );
  },
  {
    name: 'stratus-zarr-keys',
    fastify: '5.x',
    dependencies: ['stratus-context', 'stratus-files', 'stratus-icechunk-snapshots'],
  },
);

/** The served versions, read from the Dataset cache, whose informer runs while the application is open. */
export const servedVersionsPlugin = fp(
  async (app) => {
    const datasets = app.resourceCaches.of<Dataset>(datasetKind);
    app.decorate('servedVersions', new ServedVersions({ datasets, storageRoot: app.stratus.storageRoot }));
  },
  {
    name: 'stratus-served-versions',
    fastify: '5.x',
    dependencies: ['stratus-context', 'stratus-resource-caches'],
  },
);

/**
 * The fast path answers as the application would: the same request ids, log lines, metrics and CORS headers; it
 * steps aside once the application closes, when fastify answers 503.
 */
export const zarrFastPathPlugin = fp(
  async (app) => {
    let closing = false;
    app.addHook('preClose', async () => {
      closing = true;
    });
    app.decorate(
      'zarrFastPath',
      zarrFastPath({
        keys: app.zarrKeys,
        versions: app.servedVersions,
        headers: CORS_HEADERS_WITHOUT_ORIGIN,
        requestId: requestIdOf,
        log: app.log as Logger,
        requestLog: (log, request, requestId) => requestLogger(log, request, { reqId: requestId }),
        observe: (method, statusCode, seconds) => app.observeRequest(method, ZARR_ROUTE, statusCode, seconds),
        closing: () => closing,
      }),
    );
  },
  {
    name: 'stratus-zarr-fast-path',
    fastify: '5.x',
    dependencies: ['stratus-zarr-keys', 'stratus-served-versions', 'stratus-metrics', 'stratus-cors'],
  },
);
