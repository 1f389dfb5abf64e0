import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { sendPage } from '../../negotiation.ts';
import { commonErrorResponses, resourceIdSchema } from '../../schemas.ts';
import { mapChoices } from '../../services/map/choices.ts';
import { mapPage } from './pages.ts';

/** The map viewer page (docs/map.md): everything it shows comes from the other routes, through its script. */
export const mapRoutes: FastifyPluginAsyncZod = async (app) => {
  const { cluster, config, namespace } = app.stratus;

  app.get(
    '/map',
    {
      schema: {
        summary: 'The map viewer (HTML)',
        description:
          "A page with a dataset's tiles, a period slider and a legend, a feature collection's boundaries, and the " +
          'series of a clicked boundary computed by `POST /result`; when an AnalyticsTable exists for the dataset and ' +
          "the collection, the boundaries are coloured by one period's value of it (`GET /analytics/{table}`, " +
          'quantile classes with a legend) and a clicked one plots its series from the table. `dataset` and ' +
          '`collection` choose what it opens ' +
          'with; without them it opens on the first dataset with tiles and the first published feature collection ' +
          '(by name), at the newest period.',
        tags: ['Pages'],
        querystring: z.object({
          dataset: resourceIdSchema.optional().describe('A dataset with tiles to show first.'),
          collection: resourceIdSchema.optional().describe('A published feature collection to show first.'),
        }),
        produces: ['text/html'],
        response: { 200: z.string(), ...commonErrorResponses },
      },
    },
    async (request, reply) => {
      const choices = await mapChoices(cluster, namespace, config, request.caller);
      const { dataset, collection } = request.query;
      // Opens on something to look at: the first of each list unless the query chose.
      const selectedDataset = dataset ?? choices.datasets[0]?.id;
      const selectedCollection = collection ?? choices.collections[0]?.id;
      const page = mapPage(config.instance.name, {
        ...choices,
        ...(selectedDataset && { selectedDataset }),
        ...(selectedCollection && { selectedCollection }),
      });
      return sendPage(reply, page, choices.basemap ? [choices.basemap.origin] : []);
    },
  );
};
