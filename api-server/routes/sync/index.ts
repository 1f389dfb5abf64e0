import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { PeriodError } from '../../../core/periods/index.ts';
import { dataSourceKind, type DataSource } from '../../../core/resources/data-source/schema.ts';
import { datasetKind, type Dataset } from '../../../core/resources/dataset/schema.ts';
import { CommittedCubeError } from '../../../core/stores/committed-cube.ts';
import { committedRange, readCurrentCube } from '../../../core/sync/committed.ts';
import { planSync } from '../../../core/sync/plan.ts';
import { HttpError } from '../../errors.ts';
import { commonErrorResponses, errorDetailSchema, resourceIdSchema } from '../../schemas.ts';
import { syncDetailSchema, syncPlanQuerySchema } from './schemas.ts';

/** Sync: moving a managed dataset forward from what its store holds (docs/sync.md). */
export const syncRoutes: FastifyPluginAsyncZod = async (app) => {
  const { cluster, namespace, storageRoot } = app.stratus;

  /** The plan of a sync started now; 404 for an unknown dataset or template, 400 for a malformed end. */
  const planFor = async (id: string, end: string | undefined, now: Date) => {
    const dataset = await cluster.get<Dataset>(datasetKind, id, namespace);
    if (!dataset) throw new HttpError('NotFound', `Dataset ${id} not found`);
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
      if (err instanceof PeriodError) throw new HttpError('BadRequest', err.message);
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
          400: errorDetailSchema,
          404: errorDetailSchema,
          503: errorDetailSchema,
          ...commonErrorResponses,
        },
      },
    },
    async (request) => (await planFor(request.params.dataset_id, request.query.end, new Date())).detail,
  );
};
