import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { PeriodError } from '../../../core/periods/index.ts';
import { dataSourceKind, type DataSource } from '../../../core/resources/data-source/schema.ts';
import { datasetKind, type Dataset } from '../../../core/resources/dataset/schema.ts';
import { CommittedCubeError } from '../../../core/stores/committed-cube.ts';
import { committedRange, readCurrentCube } from '../../../core/sync/committed.ts';
import { planSync, type SyncDetail } from '../../../core/sync/plan.ts';
import { HttpError, validationFailed } from '../../errors.ts';
import { commonErrorResponses, errorDetailSchema, resourceIdSchema } from '../../schemas.ts';
import { datasetRecord } from '../../records/dataset.ts';
import { versionNotFound } from '../../services/resources/served-version.ts';
import { accepted, preferAsync, preferHeaders, runStartResponses, untilFinished } from '../../services/runs/replies.ts';
import { syncDetailSchema, syncPlanQuerySchema, syncRequestSchema, syncResponseSchema } from './schemas.ts';
import { markNativeApiRoutes } from '../../plugins/app/errors.ts';

/** Sync: moving a managed dataset forward from what its store holds (docs/sync.md). */
export const syncRoutes: FastifyPluginAsyncZod = async (app) => {
  markNativeApiRoutes(app);
  const { cluster, config, namespace, storageRoot } = app.stratus;

  /**
   * The plan of a sync started now; 404 for an unknown dataset or template, 422 for a malformed end, which the
   * request carries in `endIn`.
   */
  const planFor = async (id: string, end: string | undefined, endIn: 'query' | 'body', now: Date) => {
    const dataset = await cluster.get<Dataset>(datasetKind, id, namespace);
    if (!dataset) throw versionNotFound(id, 'dataset');
    const source = await cluster.get<DataSource>(dataSourceKind, dataset.spec.source, namespace);
    if (!source) throw new HttpError('NotFound', `Data source ${dataset.spec.source} of dataset ${id} not found`);
    let committed;
    try {
      committed = committedRange(await readCurrentCube(storageRoot, dataset));
    } catch (err) {
      if (err instanceof CommittedCubeError || (err as NodeJS.ErrnoException).code === 'ENOENT')
        throw new HttpError('ServiceUnavailable', `The committed store of dataset ${id} cannot be read`);
      throw err;
    }
    try {
      // A blank end is no end: the plan reaches today, within availability.
      const detail = planSync({ source, dataset, committed, end: end?.trim() || undefined, now });
      return { dataset, source, detail };
    } catch (err) {
      if (err instanceof PeriodError) throw validationFailed([endIn, 'end'], err.message);
      throw err;
    }
  };

  app.get(
    '/sync/:dataset_id/plan',
    {
      schema: {
        summary: 'What a sync of the dataset would do now',
        description:
          'Reads the committed store and the provider availability rule; downloads and writes nothing. ' +
          'See docs/sync.md for the values of action, reason and target_end_source.',
        tags: ['Sync'],
        params: z.object({ dataset_id: resourceIdSchema }),
        querystring: syncPlanQuerySchema,
        response: {
          200: syncDetailSchema,
          404: errorDetailSchema,
          503: errorDetailSchema,
          ...commonErrorResponses,
        },
      },
    },
    async (request) => (await planFor(request.params.dataset_id, request.query.end, 'query', new Date())).detail,
  );

  app.post(
    '/sync/:dataset_id',
    {
      config: { access: 'F_DATASET_MANAGE' },
      schema: {
        summary: 'Sync the dataset forward to the newest available period',
        description:
          'Plans as GET /sync/{dataset_id}/plan does; when there are periods to add, starts a sync run that fetches ' +
          'only them. Without `Prefer: respond-async` the response waits for the run; with it, 202 and ' +
          '`Location: /ingestions/jobs/<job_id>`. Nothing to do answers 200 with status up_to_date or not_syncable.',
        tags: ['Sync'],
        headers: preferHeaders,
        params: z.object({ dataset_id: resourceIdSchema }),
        body: syncRequestSchema,
        response: { 200: syncResponseSchema, 503: errorDetailSchema, ...runStartResponses },
      },
    },
    async (request, reply) => {
      const id = request.params.dataset_id;
      const { dataset, source, detail } = await planFor(id, request.body.end ?? undefined, 'body', new Date());
      const record = (d: Dataset | undefined) => (d ? datasetRecord(d, config.instance.bbox) : null);
      if (detail.action === 'no_op' || detail.action === 'not_syncable')
        return {
          sync_id: null,
          status: detail.action === 'no_op' ? 'up_to_date' : 'not_syncable',
          message: detail.message,
          dataset: record(dataset),
          sync_detail: detail,
        };
      // The run is pinned to this plan's target end, so it does not drift if it starts late.
      const run = await app.runs.start(
        {
          source: source.metadata.name,
          datasetId: id,
          mode: 'sync',
          end: detail.target_end!,
          overwrite: false,
          publish: request.body.publish,
          maxAttempts: 3,
          cancelRequested: false,
        },
        'dataset',
        request.logContext,
      );
      if (preferAsync(request.headers.prefer)) return accepted(reply, run);
      const done = (await untilFinished(app.runs, run, reply)) ?? run;
      const after = await cluster.get<Dataset>(datasetKind, id, namespace);
      const result = done.status?.result as { upToDate?: boolean; syncDetail?: SyncDetail } | undefined;
      const phase = done.status?.phase ?? 'accepted';
      return {
        sync_id: done.metadata.name,
        status: phase === 'successful' ? (result?.upToDate ? 'up_to_date' : 'completed') : phase,
        message:
          phase === 'successful'
            ? (result?.syncDetail?.message ?? `Synced ${detail.delta_start} to ${detail.delta_end}.`)
            : (done.status?.error?.message ?? `The sync run is ${phase}.`),
        dataset: record(after),
        sync_detail: result?.syncDetail ?? detail,
      };
    },
  );
};
