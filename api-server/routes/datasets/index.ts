import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { datasetKind, type Dataset } from '../../../core/resources/dataset/schema.ts';
import { resolveVersion } from '../../../core/resources/dataset/served-version.ts';
import { NETCDF_FILE, storeFile } from '../../../core/stores/layout.ts';
import { HttpError } from '../../errors.ts';
import { negotiate, represent, sendHtml } from '../../negotiation.ts';
import { byName, HTML_PAGE_LIMIT, pageQuerySchema, paginate } from '../../pagination.ts';
import { datasetRecord, datasetRecordSchema } from '../../records/dataset.ts';
import { publicBaseUrl } from '../../public-url.ts';
import { itemJson, jsonListBytes, sendJson } from '../../serialization.ts';
import { commonErrorResponses, errorDetailSchema, formatQuerySchema, resourceIdSchema } from '../../schemas.ts';
import { Lru } from '../../../core/cache/lru.ts';
import { sendFileOr404 } from '../../services/files/file-response.ts';
import { mapChoices } from '../../services/map/choices.ts';
import { derived } from '../../services/resources/derived.ts';
import { versionNotFound } from '../../services/resources/served-version.ts';
import { runAccess } from '../../services/runs/access.ts';
import { datasetDetailRecord } from './detail.ts';
import { datasetListPage, datasetPage } from './pages.ts';
import { tileRoutes } from './tiles.ts';
import { datasetDetailRecordSchema, datasetListResponseSchema } from './schemas.ts';

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
        response: { 200: datasetListResponseSchema, 400: errorDetailSchema, ...commonErrorResponses },
      },
    },
    async (request, reply) => {
      const representation = negotiate(request.headers.accept, request.query.f);
      const all = await datasets.list();
      const options = { baseUrl: config.server.baseUrl, invalid: 'BadRequest', representation } as const;
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

  app.route({
    method: ['GET', 'HEAD'],
    url: '/datasets/:dataset_id/thumbnail.png',
    schema: {
      summary: 'Preview image of a dataset',
      description:
        "A PNG of the newest period, coloured with the template's colormap. 404 only when no thumbnail was ever " +
        'produced: a later failed or empty render keeps the previous image, so a 200 may be stale.',
      tags: ['Datasets'],
      params: z.object({ dataset_id: resourceIdSchema }),
      produces: ['image/png'],
      response: { 200: z.any(), 404: errorDetailSchema, ...commonErrorResponses },
    },
    handler: async (request, reply) => {
      const id = request.params.dataset_id;
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
        'attachment). Any other format answers 409: read Zarr stores at `/zarr/{dataset_id}/`.',
      tags: ['Datasets'],
      params: z.object({ dataset_id: resourceIdSchema }),
      produces: ['application/x-netcdf'],
      response: { 200: z.any(), 404: errorDetailSchema, 409: errorDetailSchema, ...commonErrorResponses },
    },
    handler: async (request, reply) => {
      const id = request.params.dataset_id;
      const dataset = await datasetOf(id);
      if (dataset.spec.format !== 'netcdf')
        throw new HttpError(
          'Conflict',
          `Dataset ${id} is stored as ${dataset.spec.format}; only netcdf datasets have a single file to download`,
        );
      const { version } = resolveVersion(dataset);
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
