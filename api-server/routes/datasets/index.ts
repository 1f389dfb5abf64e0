import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { datasetKind, type Dataset } from '../../../core/resources/dataset/schema.ts';
import { HttpError } from '../../errors.ts';
import { negotiate, sendHtml } from '../../negotiation.ts';
import {
  commonErrorResponses,
  datasetDetailRecordSchema,
  datasetListResponseSchema,
  errorDetailSchema,
  formatQuerySchema,
  resourceIdSchema,
} from '../../schemas.ts';
import { datasetDetailRecord, datasetRecord } from './record.ts';
import { datasetListPage, datasetPage } from './pages.ts';

/** Managed datasets, read from Dataset resources through the Cluster port. */
export const datasetRoutes: FastifyPluginAsyncZod = async (app) => {
  const { cluster, config, namespace } = app.stratus;

  app.get(
    '/datasets',
    {
      schema: {
        summary: 'List managed datasets',
        tags: ['Datasets'],
        querystring: formatQuerySchema,
        produces: ['application/json', 'text/html'],
        response: { 200: datasetListResponseSchema, ...commonErrorResponses },
      },
    },
    async (request, reply) => {
      reply.header('vary', 'Accept');
      const { items } = await cluster.list<Dataset>(datasetKind, { namespace });
      const records = items.map((d) => datasetRecord(d, config.instance.bbox));
      if (negotiate(request.headers.accept, request.query.f) === 'html') {
        return sendHtml(reply, datasetListPage(config.instance.name, records));
      }
      return { kind: 'DatasetList', items: records };
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
      reply.header('vary', 'Accept');
      const dataset = await cluster.get<Dataset>(datasetKind, request.params.dataset_id, namespace);
      if (!dataset) throw new HttpError('NotFound', `Dataset ${request.params.dataset_id} not found`);
      const record = datasetDetailRecord(dataset, config.instance.bbox);
      if (negotiate(request.headers.accept, request.query.f) === 'html') {
        return sendHtml(reply, datasetPage(config.instance.name, record));
      }
      return record;
    },
  );
};
