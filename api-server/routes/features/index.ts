import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { isProviderAvailable } from '../../../core/providers/available.ts';
import { dataSourceKind, type DataSource } from '../../../core/resources/data-source/schema.ts';
import { featureCollectionKind, type FeatureCollection } from '../../../core/resources/feature-collection/schema.ts';
import { storedFeatureCollections } from '../../../core/processing/collections/feature-collections.ts';
import type { MaybeEmptyFeature } from '../../../core/processing/values/geojson.ts';
import { storeFile } from '../../../core/stores/layout.ts';
import { HttpError } from '../../errors.ts';
import { byName, pageQuerySchema, paginate } from '../../pagination.ts';
import {
  featureCollectionRecord,
  featureCollectionRecordSchema,
  isPublished,
  isStored,
} from '../../records/feature-collection.ts';
import { negotiate, represent } from '../../negotiation.ts';
import { commonErrorResponses, errorDetailSchema, formatQuerySchema, resourceIdSchema } from '../../schemas.ts';
import { mapChoices } from '../../services/map/choices.ts';
import { accepted, preferAsync, preferHeaders, runStartResponses, untilFinished } from '../../services/runs/replies.ts';
import { Lru } from '../../../core/cache/lru.ts';
import { compiledSerializer } from '../../serialization.ts';
import { derived } from '../../services/resources/derived.ts';
import { sendFileOr404 } from '../../services/files/file-response.ts';
import { featureCollectionPage } from './pages.ts';
import { featureCollectionListResponseSchema } from './schemas.ts';
import { markNativeApiRoutes } from '../../plugins/app/errors.ts';

const params = z.object({ collection_id: resourceIdSchema });

/** Registered collections with a stored file, the ones `/features` lists. */
const storedOnly = (collections: readonly FeatureCollection[]) => collections.filter(isStored);

/** GeoJSON documents of stored files kept in memory, least recently used out first. */
const GEOJSON_CACHE_BYTES = 32 * 1024 * 1024;

const asGeoJson = (feature: MaybeEmptyFeature) => ({
  type: 'Feature',
  ...(feature.id !== undefined && { id: feature.id }),
  geometry: feature.geometry,
  properties: feature.properties,
});

/**
 * A refresh fetches everything again, and the HTTP client already retries each request; a run that still fails
 * is reported at once instead of after minutes of backoff.
 */
const REFRESH_ATTEMPTS = 1;

/** Feature collections: records of the stored collections, their GeoParquet files, and refresh runs. */
export const featureRoutes: FastifyPluginAsyncZod = async (app) => {
  markNativeApiRoutes(app);
  const { cluster, namespace } = app.stratus;
  const collections = app.resourceCaches.of<FeatureCollection>(featureCollectionKind);

  const storedCollection = async (id: string) => {
    const collection = await cluster.get<FeatureCollection>(featureCollectionKind, id, namespace);
    if (!collection || !isStored(collection)) throw new HttpError('NotFound', `Feature collection ${id} not found`);
    return collection;
  };

  app.get(
    '/features',
    {
      serializerCompiler: compiledSerializer,
      schema: {
        summary: 'List the stored feature collections',
        description:
          'Registered collections with a stored file only: a file placed by hand in the store never appears. ' +
          'Ordered by id, paginated with `limit` and `token` as openEO lists are; without `limit`, every collection ' +
          '(docs/pagination.md).',
        tags: ['Features'],
        querystring: pageQuerySchema,
        response: { 200: featureCollectionListResponseSchema, ...commonErrorResponses },
      },
    },
    async (request) => {
      const stored = derived(await collections.list(), storedOnly);
      const page = paginate(request, stored, byName, {
        baseUrl: app.stratus.config.server.baseUrl,
        invalid: 'ValidationFailed',
        representation: 'json',
      });
      return { kind: 'FeatureCollectionList', items: page.items.map(featureCollectionRecord), links: page.links };
    },
  );

  app.get(
    '/features/:collection_id',
    {
      schema: {
        summary: 'One stored feature collection',
        description: 'As HTML, a page with its boundaries on the map viewer (docs/map.md) once published.',
        tags: ['Features'],
        params,
        querystring: formatQuerySchema,
        produces: ['application/json', 'text/html'],
        response: { 200: featureCollectionRecordSchema, 404: errorDetailSchema, ...commonErrorResponses },
      },
    },
    async (request, reply) => {
      const collection = await storedCollection(request.params.collection_id);
      const record = featureCollectionRecord(collection);
      // Only a published collection's boundaries are served (data.geojson), so only then is there a map.
      const page = isPublished(collection) && negotiate(request.headers.accept, request.query.f) === 'html';
      const choices = page ? await mapChoices(cluster, namespace, app.stratus.config, request.caller) : undefined;
      return represent(
        request,
        reply,
        record,
        () =>
          featureCollectionPage(
            app.stratus.config.instance.name,
            record,
            choices && { ...choices, selectedCollection: record.id },
          ),
        choices?.basemap ? [choices.basemap.origin] : [],
      );
    },
  );

  app.route({
    method: ['GET', 'HEAD'],
    url: '/features/:collection_id/data.parquet',
    schema: {
      summary: 'The GeoParquet file of a published collection',
      description:
        'GeoParquet 1.1 (WKB geometry, `geo` metadata, a bbox covering column), with ETag, Last-Modified, ' +
        'conditional requests and single byte ranges. The path comes from the registered record.',
      tags: ['Features'],
      params,
      produces: ['application/vnd.apache.parquet'],
      response: {
        200: z.any(),
        206: z.any(),
        304: z.any(),
        404: errorDetailSchema,
        416: errorDetailSchema,
        ...commonErrorResponses,
      },
    },
    handler: async (request, reply) => {
      const id = request.params.collection_id;
      const collection = await storedCollection(id);
      if (!isPublished(collection)) throw new HttpError('NotFound', `Feature collection ${id} is not published`);
      reply.header('content-disposition', `attachment; filename="${id}.parquet"`);
      return sendFileOr404(request, reply, storeFile(app.stratus.storageRoot, collection.status.path), {
        contentType: 'application/vnd.apache.parquet',
        etagPrefix: collection.status.path
          .split('/')
          .at(-1)!
          .replace(/\.parquet$/, ''),
        cache: app.files,
        missing: `Feature collection ${id} has no stored file`,
      });
    },
  });

  // Stored files never change (a refresh writes a new one): a document made from one is kept by its path.
  const geojson = new Lru<Promise<string>>(GEOJSON_CACHE_BYTES);
  const features = storedFeatureCollections({ cluster, namespace, storageRoot: app.stratus.storageRoot });

  app.route({
    method: ['GET', 'HEAD'],
    url: '/features/:collection_id/data.geojson',
    schema: {
      summary: 'A published collection as GeoJSON',
      description:
        'The features of the stored GeoParquet file as one GeoJSON FeatureCollection (EPSG:4326 longitude, ' +
        'latitude), each with its `idProperty` value as its `id`, as `load_features` reads them; what the map ' +
        'viewer draws. ETag from the stored file; 404 for a collection not stored or not published.',
      tags: ['Features'],
      params,
      produces: ['application/geo+json'],
      response: { 200: z.any(), 304: z.null(), 404: errorDetailSchema, ...commonErrorResponses },
    },
    handler: async (request, reply) => {
      const id = request.params.collection_id;
      const collection = await storedCollection(id);
      if (!isPublished(collection)) throw new HttpError('NotFound', `Feature collection ${id} is not published`);
      const path = collection.status.path;
      const etag = `"${path
        .split('/')
        .at(-1)!
        .replace(/\.parquet$/, '')}-geojson"`;
      reply.header('etag', etag).header('cache-control', 'no-cache');
      if (request.headers['if-none-match'] === etag) return reply.code(304).send(null);
      let document = geojson.get(path);
      if (!document) {
        const missing = () => new HttpError('NotFound', `Feature collection ${id} has no stored file`);
        document = features.get(id).then(
          (read) => {
            if (!read) throw missing();
            return JSON.stringify({ type: 'FeatureCollection', features: read.features.map(asGeoJson) });
          },
          (err: NodeJS.ErrnoException) => {
            throw err.code === 'ENOENT' ? missing() : err;
          },
        );
        // A failed read is not kept: the next request tries again.
        document.then(
          (text) => geojson.set(path, document!, Buffer.byteLength(text)),
          () => undefined,
        );
      }
      return reply.type('application/geo+json').send(await document);
    },
  });

  app.post(
    '/features/:collection_id/refresh',
    {
      config: { access: 'F_DATASET_MANAGE' },
      schema: {
        summary: 'Fetch a feature collection from its template, creating or replacing it',
        description:
          'Checks the template, then starts a refresh run. Without `Prefer: respond-async` the response waits ' +
          'for the run and answers the new record (502 `RefreshFailed` when the run fails; the previous ' +
          'collection stays served); with it, 202 and `Location: /ingestions/jobs/<job_id>`.',
        tags: ['Features'],
        params,
        querystring: z.object({
          publish: z
            .stringbool()
            .default(true)
            .describe('Publish the collection once stored: true (default) or false.'),
        }),
        headers: preferHeaders,
        response: { 200: featureCollectionRecordSchema, 502: errorDetailSchema, ...runStartResponses },
      },
    },
    async (request, reply) => {
      const id = request.params.collection_id;
      const existing = await cluster.get<FeatureCollection>(featureCollectionKind, id, namespace);
      const templateName = existing?.spec.source ?? id;
      const template = await cluster.get<DataSource>(dataSourceKind, templateName, namespace);
      if (!template || template.spec.itemType !== 'feature')
        throw new HttpError('NotFound', `Feature collection template ${templateName} not found`);
      const provider = existing?.spec.provider?.name ?? template.spec.provider.name;
      if (!isProviderAvailable(provider, 'feature'))
        throw new HttpError(
          'BadRequest',
          `Feature collection template ${templateName} needs provider ${provider}, which this instance does not have`,
        );
      if (!existing && template.spec.idProperty === undefined)
        throw new HttpError(
          'BadRequest',
          `Feature collection template ${templateName} declares no idProperty, the property features are identified by`,
        );
      const run = await app.runs.start(
        {
          source: templateName,
          datasetId: id,
          mode: 'feature-refresh',
          overwrite: true,
          publish: request.query.publish,
          maxAttempts: REFRESH_ATTEMPTS,
          cancelRequested: false,
        },
        'feature collection',
        request.logContext,
      );
      if (preferAsync(request.headers.prefer)) return accepted(reply, run);
      const done = await untilFinished(app.runs, run, reply);
      const job = `/ingestions/jobs/${run.metadata.name}`;
      if (done?.status?.phase === 'successful') return featureCollectionRecord(await storedCollection(id));
      if (done?.status?.phase === 'failed') {
        const error = done.status.error;
        throw new HttpError(
          'RefreshFailed',
          `Refresh of ${id} failed (${error?.type}: ${error?.message}); the previous collection stays served. Job record: ${job}`,
        );
      }
      throw new HttpError(
        'Conflict',
        `Refresh of ${id} did not finish (${done?.status?.phase ?? 'deleted'}); see ${job}`,
      );
    },
  );
};
