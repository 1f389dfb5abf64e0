import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { datasetKind, type Dataset } from '../../../core/resources/dataset/schema.ts';
import { pinsOf, versionPins } from '../../../core/resources/dataset/retention.ts';
import { resolveVersion } from '../../../core/resources/dataset/served-version.ts';
import { deliveryKind, type Delivery } from '../../../core/resources/delivery/schema.ts';
import { processingJobKind, type ProcessingJob } from '../../../core/resources/processing-job/schema.ts';
import { NETCDF_FILE, storeFile, thumbnailPath } from '../../../core/stores/layout.ts';
import { HttpError } from '../../errors.ts';
import { negotiate, represent, sendHtml } from '../../negotiation.ts';
import { byName, HTML_PAGE_LIMIT, pageQuerySchema, paginate } from '../../pagination.ts';
import { datasetRecord, datasetRecordSchema } from '../../records/dataset.ts';
import { publicBaseUrl } from '../../public-url.ts';
import { itemJson, jsonListBytes, sendJson } from '../../serialization.ts';
import {
  commonErrorResponses,
  datasetRefSchema,
  errorDetailSchema,
  formatQuerySchema,
  resourceIdSchema,
} from '../../schemas.ts';
import { Lru } from '../../../core/cache/lru.ts';
import { sendFileOr404 } from '../../services/files/file-response.ts';
import { mapChoices } from '../../services/map/choices.ts';
import { derived } from '../../services/resources/derived.ts';
import { datasetRef, readVersion, versionNotFound } from '../../services/resources/served-version.ts';
import { runAccess } from '../../services/runs/access.ts';
import { datasetDetailRecord, datasetVersionRecord } from './detail.ts';
import { datasetListPage, datasetPage } from './pages.ts';
import { tileRoutes } from './tiles.ts';
import { datasetDetailRecordSchema, datasetListResponseSchema, datasetVersionRecordSchema } from './schemas.ts';

/**
 * The JSON pages of one state of the Dataset cache kept, by bytes: the whole list of 10,000 datasets is 6.5 MB,
 * a page of a hundred 65 KB.
 */
const PAGE_CACHE_BYTES = 16 * 1024 * 1024;
const pageCache = (): Lru<Buffer> => new Lru(PAGE_CACHE_BYTES);

/** Managed datasets, read from Dataset resources through the Cluster port. */
export const datasetRoutes: FastifyPluginAsyncZod = async (app) => {
  const { cluster, config, namespace, storageRoot } = app.stratus;
  await app.register(tileRoutes);

  const datasetOf = async (id: string) => {
    const dataset = await cluster.get<Dataset>(datasetKind, id, namespace);
    if (!dataset) throw versionNotFound(id, 'dataset');
    return dataset;
  };

  const datasets = app.resourceCaches.of<Dataset>(datasetKind);
  const recordOf = (dataset: Dataset) => datasetRecord(dataset, config.instance.bbox);
  const recordJson = itemJson(datasetRecordSchema, recordOf);

  app.get(
    '/datasets',
    {
      schema: {
        summary: 'List managed datasets',
        description:
          'Ordered by id. Paginated with `limit` and `token` as openEO lists are: without `limit` the JSON holds ' +
          `every dataset and the HTML page ${HTML_PAGE_LIMIT}; \`links\` has the \`next\`, \`prev\` and \`first\` pages.`,
        tags: ['Datasets'],
        querystring: formatQuerySchema.extend(pageQuerySchema.shape),
        produces: ['application/json', 'text/html'],
        response: { 200: datasetListResponseSchema, ...commonErrorResponses },
      },
    },
    async (request, reply) => {
      const representation = negotiate(request.headers.accept, request.query.f);
      const all = await datasets.list();
      const options = { baseUrl: config.server.baseUrl, invalid: 'ValidationFailed', representation } as const;
      if (representation === 'html') {
        const page = paginate(request, all, byName, options);
        return sendHtml(reply, datasetListPage(config.instance.name, page.items.map(recordOf), page.links));
      }
      // The bytes of a JSON page depend on the cache's state (its array, see `derived`), the request's URL (`limit`,
      // `token`, `f`) and the public URL of its links, and on nothing else (no caller sees a different list): each
      // page is written once per state of the cache, and a page asked again is sent as it was.
      const pages = derived(all, pageCache);
      const key = `${publicBaseUrl(request, config.server.baseUrl)} ${request.url}`;
      let bytes = pages.get(key);
      if (bytes === undefined) {
        const page = paginate(request, all, byName, options);
        // A DatasetListResponse, written from each record's bytes (`itemJson`).
        bytes = jsonListBytes({ kind: 'DatasetList' }, 'items', page.items.map(recordJson), { links: page.links });
        pages.set(key, bytes, bytes.length);
      }
      return sendJson(reply, bytes);
    },
  );

  app.get(
    '/datasets/:dataset_id',
    {
      schema: {
        summary: 'One managed dataset with its versions',
        tags: ['Datasets'],
        params: z.object({ dataset_id: resourceIdSchema }),
        querystring: formatQuerySchema,
        produces: ['application/json', 'text/html'],
        response: { 200: datasetDetailRecordSchema, 404: errorDetailSchema, ...commonErrorResponses },
      },
    },
    async (request, reply) => {
      const record = datasetDetailRecord(await datasetOf(request.params.dataset_id), config.instance.bbox);
      if (negotiate(request.headers.accept, request.query.f) === 'json') return record;
      const choices = await mapChoices(cluster, namespace, config, request.caller);
      return represent(
        request,
        reply,
        record,
        () => datasetPage(config.instance.name, record, choices, runAccess(config, request.caller)),
        choices.basemap ? [choices.basemap.origin] : [],
      );
    },
  );

  app.delete(
    '/datasets/:dataset_id/versions/:version',
    {
      config: { access: 'F_DATASET_MANAGE' },
      schema: {
        summary: 'Remove a retained version of a dataset',
        description:
          'Asks for a retained version (its id or Icechunk snapshot id) to be removed: it stops counting among the ' +
          '`versionHistoryLimit` newest, and the operator removes it with its files once its grace period after it ' +
          'stopped being current is over (readers that opened it can finish). 202 with the version. 409 for the ' +
          'served version, or a version a run pins (an unfinished batch job that reads it, or an unfinished ' +
          'delivery of such a job), naming the runs; 404 naming a version that is not retained.',
        tags: ['Datasets'],
        params: z.object({ dataset_id: resourceIdSchema, version: z.string().min(1).max(253) }),
        response: {
          202: datasetVersionRecordSchema,
          404: errorDetailSchema,
          409: errorDetailSchema,
          ...commonErrorResponses,
        },
      },
    },
    async (request, reply) => {
      const { dataset_id: id } = request.params;
      const { dataset, version } = await readVersion(cluster, namespace, id, { version: request.params.version });
      if (version.id === dataset.status?.currentVersion)
        throw new HttpError(
          'Conflict',
          `Version ${version.id} of dataset ${id} is the one served; it can be removed once another is`,
        );
      const [jobs, deliveries] = await Promise.all([
        cluster.list<ProcessingJob>(processingJobKind, { namespace }),
        cluster.list<Delivery>(deliveryKind, { namespace }),
      ]);
      const holders = pinsOf(versionPins(id, jobs.items, deliveries.items), version.id);
      if (holders.length > 0)
        throw new HttpError(
          'Conflict',
          `Version ${version.id} of dataset ${id} is pinned by ${holders.join(', ')}; it can be removed once they end`,
        );
      // Names of versions already gone are dropped on the way, so the list never outgrows the retained versions.
      const retained = new Set((dataset.status?.versions ?? []).map((v) => v.id));
      const removeVersions = [
        ...(dataset.spec.removeVersions ?? []).filter((v) => retained.has(v) && v !== version.id),
        version.id,
      ];
      const patched = await cluster.patch<Dataset>(
        datasetKind,
        id,
        {
          type: 'merge',
          body: { metadata: { resourceVersion: dataset.metadata.resourceVersion }, spec: { removeVersions } },
        },
        namespace,
        { fieldManager: 'stratus-api-server' },
      );
      reply.code(202);
      return datasetVersionRecord(patched, version);
    },
  );

  app.route({
    method: ['GET', 'HEAD'],
    url: '/datasets/:dataset_id/thumbnail.png',
    schema: {
      summary: 'Preview image of a dataset',
      description:
        "A PNG of the newest period, coloured with the template's colormap. 404 only when no thumbnail was ever " +
        'produced: a later failed or empty render keeps the previous image, so a 200 may be stale. ' +
        '`/datasets/{dataset_id}@{version}/thumbnail.png` is the image rendered with a retained version (404 when ' +
        'its render failed, or the version is not retained).',
      tags: ['Datasets'],
      params: z.object({ dataset_id: datasetRefSchema }),
      produces: ['image/png'],
      response: { 200: z.any(), 404: errorDetailSchema, ...commonErrorResponses },
    },
    handler: async (request, reply) => {
      const ref = datasetRef(request.params.dataset_id);
      const { id } = ref;
      if (ref.version !== undefined) {
        const { version } = await readVersion(cluster, namespace, id, { version: ref.version });
        return sendFileOr404(request, reply, storeFile(storageRoot, thumbnailPath(id, version.id)), {
          contentType: 'image/png',
          etagPrefix: 'thumbnail',
          cache: app.files,
          missing: `Dataset ${id} has no thumbnail of version ${version.id}`,
        });
      }
      const thumbnail = (await datasetOf(id)).status?.thumbnail;
      return sendFileOr404(request, reply, thumbnail === undefined ? undefined : storeFile(storageRoot, thumbnail), {
        contentType: 'image/png',
        etagPrefix: 'thumbnail',
        cache: app.files,
        missing: `Dataset ${id} has no thumbnail yet`,
      });
    },
  });

  app.route({
    method: ['GET', 'HEAD'],
    url: '/datasets/:dataset_id/download',
    schema: {
      summary: 'The NetCDF-4 file of a dataset',
      description:
        'Only for datasets stored as `netcdf`, the one single-file format (`application/x-netcdf`, a `.nc` ' +
        'attachment). Any other format answers 409: read Zarr stores at `/zarr/{dataset_id}/`. ' +
        '`/datasets/{dataset_id}@{version}/download` downloads a retained version (404 naming one not retained).',
      tags: ['Datasets'],
      params: z.object({ dataset_id: datasetRefSchema }),
      produces: ['application/x-netcdf'],
      response: { 200: z.any(), 404: errorDetailSchema, 409: errorDetailSchema, ...commonErrorResponses },
    },
    handler: async (request, reply) => {
      const ref = datasetRef(request.params.dataset_id);
      const { id } = ref;
      const dataset = await datasetOf(id);
      if (dataset.spec.format !== 'netcdf')
        throw new HttpError(
          'Conflict',
          `Dataset ${id} is stored as ${dataset.spec.format}; only netcdf datasets have a single file to download`,
        );
      const { version, miss } = resolveVersion(dataset, { version: ref.version });
      if (miss === 'named') throw versionNotFound(id, miss, ref);
      reply.header('content-disposition', `attachment; filename="${id}.nc"`);
      return sendFileOr404(request, reply, version && storeFile(storageRoot, version.path, NETCDF_FILE), {
        contentType: 'application/x-netcdf',
        etagPrefix: version?.id ?? '',
        cache: app.files,
        missing: versionNotFound(id, 'version').message,
      });
    },
  });
};
