import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { PeriodError } from '../../../core/periods/index.ts';
import { runRange } from '../../../core/sync/range.ts';
import { isProviderAvailable } from '../../../core/providers/available.ts';
import { dataSourceKind, type DataSource } from '../../../core/resources/data-source/schema.ts';
import { currentVersionOf, datasetKind, type Dataset } from '../../../core/resources/dataset/schema.ts';
import { datasetIdOf, isFinished } from '../../../core/resources/ingestion/run.ts';
import { ingestionKind, type Ingestion } from '../../../core/resources/ingestion/schema.ts';
import { HttpError, validationFailed } from '../../errors.ts';
import { newestFirst, pageQuerySchema, paginate } from '../../pagination.ts';
import { compiledSerializer } from '../../serialization.ts';
import { datasetRecord } from '../../records/dataset.ts';
import { ingestionJob, ingestionJobSchema, jobRecordHref } from '../../records/ingestion-job.ts';
import { commonErrorResponses, errorDetailSchema, resourceIdSchema } from '../../schemas.ts';
import {
  acceptedHeaders,
  preferAsync,
  preferHeaders,
  runStartResponses,
  untilFinished,
} from '../../services/runs/replies.ts';
import {
  createIngestionRequestSchema,
  ingestionAcceptedSchema,
  ingestionListResponseSchema,
  ingestionResponseSchema,
} from './schemas.ts';
import { markNativeApiRoutes } from '../../plugins/app/errors.ts';

/** Ingestion runs: each request becomes an Ingestion resource that the operator carries out. */
export const ingestionRoutes: FastifyPluginAsyncZod = async (app) => {
  markNativeApiRoutes(app);
  const { cluster, config, namespace } = app.stratus;

  const response = (run: Ingestion, dataset: Dataset | undefined) => ({
    ingestion_id: run.metadata.name,
    status: run.status?.phase ?? 'accepted',
    dataset: dataset ? datasetRecord(dataset, config.instance.bbox) : null,
  });
  const responseOf = async (run: Ingestion) =>
    response(run, await cluster.get<Dataset>(datasetKind, datasetIdOf(run), namespace));

  const getRun = async (id: string) => {
    const run = await cluster.get<Ingestion>(ingestionKind, id, namespace);
    if (!run) throw new HttpError('NotFound', `Ingestion ${id} not found`);
    return run;
  };

  app.post(
    '/ingestions',
    {
      config: { access: 'F_DATASET_MANAGE' },
      schema: {
        summary: 'Ingest a data source into its managed dataset',
        description:
          'Checks the request, then starts an Ingestion run. Without `Prefer: respond-async` the response waits ' +
          'for the run to finish; with it, 202 with the IngestionResponse (`status` accepted, `dataset` null), ' +
          '`Location: /ingestions/jobs/<job_id>` and that job record as the `monitor` link. 409 while another run ' +
          'writes the dataset, and for a request identical to one a run already serves (same periods, same ' +
          'current version): identical requests make one run.',
        tags: ['Ingestions'],
        headers: preferHeaders,
        body: createIngestionRequestSchema,
        response: { 200: ingestionResponseSchema, ...runStartResponses, 202: ingestionAcceptedSchema },
      },
    },
    async (request, reply) => {
      const body = request.body;
      const source = await cluster.get<DataSource>(dataSourceKind, body.dataset_id, namespace);
      if (!source) throw new HttpError('NotFound', `Data source ${body.dataset_id} not found`);
      if (source.spec.itemType === 'feature')
        throw new HttpError(
          'BadRequest',
          `Data source ${body.dataset_id} is a feature collection template; refresh it with POST /features/${body.dataset_id}/refresh`,
        );
      if (!isProviderAvailable(source.spec.provider.name))
        throw new HttpError(
          'BadRequest',
          `Data source ${body.dataset_id} needs provider ${source.spec.provider.name}, which this instance does not have`,
        );
      if (!source.spec.periodType)
        throw new HttpError('BadRequest', `Data source ${body.dataset_id} declares no period type`);
      let range: ReturnType<typeof runRange>;
      try {
        range = runRange(source, source.spec.periodType, body.start ?? undefined, body.end ?? undefined, new Date());
      } catch (err) {
        if (err instanceof PeriodError) throw validationFailed(['body', err.bound ?? 'start'], err.message);
        throw err;
      }
      const dataset = await cluster.get<Dataset>(datasetKind, body.dataset_id, namespace);
      const run = await app.runs.start(
        {
          source: source.metadata.name,
          datasetId: body.dataset_id,
          mode: 'ingestion',
          ...(body.start ? { start: body.start } : {}),
          ...(body.end ? { end: body.end } : {}),
          overwrite: body.overwrite,
          ...(body.replace && { replace: true }),
          publish: body.publish,
          maxAttempts: 3,
          cancelRequested: false,
        },
        'dataset',
        request.logContext,
        // Requests for the same periods that find the same version are the same request: one run serves them.
        { range, version: currentVersionOf(dataset)?.id ?? null },
      );
      if (preferAsync(request.headers.prefer)) {
        acceptedHeaders(reply, run);
        const id = run.metadata.name;
        return {
          ...response(run, undefined),
          links: [
            { href: jobRecordHref(id), rel: 'monitor', title: 'Job record' },
            { href: `/ingestions/${id}`, rel: 'self', title: 'Ingestion' },
          ],
        };
      }
      return responseOf((await untilFinished(app.runs, run, reply)) ?? run);
    },
  );

  const runs = app.resourceCaches.of<Ingestion>(ingestionKind);
  const datasets = app.resourceCaches.of<Dataset>(datasetKind);
  app.get(
    '/ingestions',
    {
      serializerCompiler: compiledSerializer,
      schema: {
        summary: 'List ingestion runs, newest first',
        description:
          'Paginated with `limit` and `token` as openEO lists are; without `limit`, every run (docs/pagination.md).',
        tags: ['Ingestions'],
        querystring: pageQuerySchema,
        response: { 200: ingestionListResponseSchema, ...commonErrorResponses },
      },
    },
    async (request) => {
      const [all] = await Promise.all([runs.list(newestFirst), datasets.list()]);
      const page = paginate(request, all, newestFirst, {
        baseUrl: config.server.baseUrl,
        invalid: 'ValidationFailed',
        representation: 'json',
      });
      const items = page.items.map((run) => response(run, datasets.peek(datasetIdOf(run))));
      return { kind: 'IngestionList', items, links: page.links };
    },
  );

  app.get(
    '/ingestions/:ingestion_id',
    {
      schema: {
        summary: 'One ingestion run with the managed dataset it writes',
        tags: ['Ingestions'],
        params: z.object({ ingestion_id: resourceIdSchema }),
        response: { 200: ingestionResponseSchema, 404: errorDetailSchema, ...commonErrorResponses },
      },
    },
    async (request) => responseOf(await getRun(request.params.ingestion_id)),
  );

  app.get(
    '/ingestions/jobs/:job_id',
    {
      schema: {
        summary: 'The job record of an ingestion or sync run',
        tags: ['Ingestions'],
        params: z.object({ job_id: resourceIdSchema }),
        response: { 200: ingestionJobSchema, 404: errorDetailSchema, ...commonErrorResponses },
      },
    },
    async (request) => ingestionJob(await getRun(request.params.job_id)),
  );

  app.delete(
    '/ingestions/jobs/:job_id',
    {
      config: { access: 'F_DATASET_MANAGE' },
      schema: {
        summary: 'Request cooperative cancellation of a run',
        description:
          'The run stops between periods; every committed version is kept. A finished run cannot be cancelled (409).',
        tags: ['Ingestions'],
        params: z.object({ job_id: resourceIdSchema }),
        response: { 202: ingestionJobSchema, 404: errorDetailSchema, 409: errorDetailSchema, ...commonErrorResponses },
      },
    },
    async (request, reply) => {
      const run = await getRun(request.params.job_id);
      if (isFinished(run))
        throw new HttpError('Conflict', `Ingestion ${run.metadata.name} already finished (${run.status?.phase})`);
      const patched = await cluster.patch<Ingestion>(
        ingestionKind,
        run.metadata.name,
        { type: 'merge', body: { spec: { cancelRequested: true } } },
        namespace,
        { fieldManager: 'stratus-api-server' },
      );
      reply.code(202);
      return ingestionJob(patched);
    },
  );
};
