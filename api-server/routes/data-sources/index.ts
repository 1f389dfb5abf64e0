import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { dataSourceKind, type DataSource } from '../../../core/resources/data-source/schema.ts';
import { datasetKind, type Dataset } from '../../../core/resources/dataset/schema.ts';
import { HttpError } from '../../errors.ts';
import { represent } from '../../negotiation.ts';
import { commonErrorResponses, errorDetailSchema, formatQuerySchema, resourceIdSchema } from '../../schemas.ts';
import { runAccess } from '../../services/runs/access.ts';
import { dataSourceListPage, dataSourcePage } from './pages.ts';
import { dataSourceRecord, sortSources } from './record.ts';
import { dataSourceRecordSchema } from './schemas.ts';

/** Dataset templates, read from DataSource resources; `ingestable` says whether this instance can fetch them. */
export const dataSourceRoutes: FastifyPluginAsyncZod = async (app) => {
  const { cluster, config, namespace } = app.stratus;

  app.get(
    '/data-sources',
    {
      schema: {
        summary: 'List data sources',
        description: 'Rasters first, then feature collections. The HTML page lists only what this instance can fetch.',
        tags: ['Data sources'],
        querystring: formatQuerySchema,
        produces: ['application/json', 'text/html'],
        response: { 200: z.array(dataSourceRecordSchema), ...commonErrorResponses },
      },
    },
    async (request, reply) => {
      const { items } = await cluster.list<DataSource>(dataSourceKind, { namespace });
      const records = sortSources(items.map(dataSourceRecord));
      return represent(request, reply, records, () => dataSourceListPage(config.instance.name, records));
    },
  );

  app.get(
    '/data-sources/:dataset_id',
    {
      schema: {
        summary: 'One data source with the coverage a dataset made from it would have',
        tags: ['Data sources'],
        params: z.object({ dataset_id: resourceIdSchema }),
        querystring: formatQuerySchema,
        produces: ['application/json', 'text/html'],
        response: { 200: dataSourceRecordSchema, 404: errorDetailSchema, ...commonErrorResponses },
      },
    },
    async (request, reply) => {
      const source = await cluster.get<DataSource>(dataSourceKind, request.params.dataset_id, namespace);
      if (!source) throw new HttpError('NotFound', `Data source ${request.params.dataset_id} not found`);
      // By spec.source, not by label: a Dataset applied from YAML need not carry the label.
      const datasets = (await cluster.list<Dataset>(datasetKind, { namespace })).items.filter(
        (d) => d.spec.source === source.metadata.name,
      );
      const [xmin, ymin, xmax, ymax] = config.instance.bbox;
      const record = {
        ...dataSourceRecord(source),
        coverage: {
          spatial: { xmin, ymin, xmax, ymax },
          crs: config.instance.crs,
          period_type: source.spec.periodType ?? null,
        },
        datasets: datasets.map((d) => ({ dataset_id: d.metadata.name, href: `/datasets/${d.metadata.name}` })),
      };
      const thumbnails = datasets
        .filter((d) => d.status?.thumbnail !== undefined)
        .map((d) => ({ datasetId: d.metadata.name, href: `/datasets/${d.metadata.name}/thumbnail.png` }));
      return represent(request, reply, record, () =>
        dataSourcePage(config.instance.name, record, runAccess(config, request.caller), thumbnails),
      );
    },
  );
};
