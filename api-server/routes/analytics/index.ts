import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { encodeAnalyticsTable } from '../../../core/analytics/table-file.ts';
import { analyticsTableKind, type AnalyticsTable } from '../../../core/resources/analytics-table/schema.ts';
import { featureCollectionKind, type FeatureCollection } from '../../../core/resources/feature-collection/schema.ts';
import { HttpError } from '../../errors.ts';
import { preferredMediaType } from '../../negotiation.ts';
import { markNativeApiRoutes } from '../../plugins/app/errors.ts';
import { storeFile } from '../../../core/stores/layout.ts';
import { publicBaseUrl } from '../../public-url.ts';
import { commonErrorResponses, errorDetailSchema, resourceIdSchema } from '../../schemas.ts';
import { planQuery, withDimensions } from '../../services/analytics/query.ts';
import { LoadedTables } from '../../services/analytics/tables.ts';
import { tableDownload } from '../../services/analytics/table-download.ts';
import { aggregateOverFilters } from '../../services/analytics/filter-aggregate.ts';
import { aggregatedCsv } from '../../services/analytics/response.ts';
import { sendEntity } from '../../services/files/file-response.ts';
import { analyticsAnswerSchema, analyticsQuerySchema } from './schemas.ts';

/** The most rows a JSON or CSV answer holds; a larger query is refused with the Parquet download's URL. */
export const ANALYTICS_ROW_LIMIT = 50_000;

const MEDIA_TYPES = { json: 'application/json', csv: 'text/csv', parquet: 'application/vnd.apache.parquet' } as const;
type Format = keyof typeof MEDIA_TYPES;
const formatOf = Object.fromEntries(Object.entries(MEDIA_TYPES).map(([f, type]) => [type, f])) as Record<
  string,
  Format
>;

export interface AnalyticsRoutesOptions {
  /** The clock relative periods are read against. */
  now: () => Date;
}

/** `GET /analytics/{table}`: an AnalyticsTable's served version, answered from memory (docs/analytics.md). */
export const analyticsRoutes: FastifyPluginAsyncZod<AnalyticsRoutesOptions> = async (app, { now }) => {
  markNativeApiRoutes(app);
  const { cluster, namespace, storageRoot } = app.stratus;
  const tables = app.resourceCaches.of<AnalyticsTable>(analyticsTableKind);
  const loaded = new LoadedTables(storageRoot);

  app.route({
    method: ['GET', 'HEAD'],
    url: '/analytics/:table',
    schema: {
      summary: 'Query an analytics table',
      description:
        "Rows of an AnalyticsTable's served version in DHIS2 analytics' shape (`headers`, `metaData`, `rows`, " +
        '`width`, `height`; the statistic is the data dimension `dx`, rows without a value are left out), as CSV, ' +
        'or as Parquet in the columns of the table files (the whole table as one file when nothing is filtered). The format ' +
        'comes from a `.json`, `.csv` or `.parquet` suffix of the name, else `format`, else Accept. `ou`, `pe` ' +
        "and `stat` take DHIS2's `;`-separated items; DHIS2's `dimension=ou:ID1;ID2` (`dx`, `ou`, `pe`; `dx` is " +
        "`stat`) says the same. DHIS2's `filter=ou:ID1;ID2` (`ou`, `pe`, or `dx` with one statistic) makes a dimension " +
        'a filter: it is no column of the answer, whose values aggregate over its items (sum of sums, least minimum, ' +
        'greatest maximum, sum of counts, mean of means weighted by their counts; JSON or CSV only; the periods of ' +
        'one type). A dimension given twice, or as a dimension and a filter, is a 400 naming it. ' +
        `A JSON or CSV answer of more than ${ANALYTICS_ROW_LIMIT} ` +
        'rows is refused (400) with the Parquet URL of the same query. 404: no such table; 409: not built yet.',
      tags: ['Analytics'],
      params: z.object({ table: resourceIdSchema }),
      querystring: analyticsQuerySchema,
      produces: Object.values(MEDIA_TYPES),
      response: {
        200: analyticsAnswerSchema,
        304: z.any(),
        400: errorDetailSchema,
        404: errorDetailSchema,
        409: errorDetailSchema,
        ...commonErrorResponses,
      },
    },
    handler: async (request, reply) => {
      const suffix = /\.(json|csv|parquet)$/.exec(request.params.table);
      const name = suffix ? request.params.table.slice(0, suffix.index) : request.params.table;
      const format: Format =
        (suffix?.[1] as Format | undefined) ??
        request.query.format ??
        formatOf[preferredMediaType(request.headers.accept, [MEDIA_TYPES.json, MEDIA_TYPES.csv, MEDIA_TYPES.parquet])]!;

      const table = await tables.get(name);
      if (!table) {
        loaded.forget(name);
        throw new HttpError('NotFound', `Analytics table ${name} not found`);
      }
      const version = table.status?.table;
      if (!version) {
        loaded.forget(name);
        throw new HttpError('Conflict', `Analytics table ${name} is not built yet; its first build publishes it`);
      }
      // The collection's id property says which feature property the table's org unit ids are.
      const idProperty = async () =>
        (await cluster.get<FeatureCollection>(featureCollectionKind, table.spec.featureCollection, namespace))?.spec
          .idProperty ?? '';
      const current = await loaded.of(name, version, idProperty);
      const given = withDimensions(request.query);
      const { ou, pe, stat } = given.parameters;
      const filtering = Object.values(given.filters).some((items) => items !== undefined);
      if (format === 'parquet' && filtering)
        throw new HttpError(
          'BadRequest',
          "filter= is answered as JSON or CSV; a Parquet answer has the table files' columns, a row per org unit and period: select with ou, pe and stat instead",
        );
      if (format === 'parquet' && ou === undefined && pe === undefined && stat === undefined) {
        reply.header('content-disposition', `attachment; filename="${name}.parquet"`);
        await sendEntity(
          request,
          reply,
          await tableDownload(current, version, storeFile(storageRoot, version.path), MEDIA_TYPES.parquet),
        );
        return reply;
      }

      const planned = planQuery(current, table.spec.statistics, given, now(), format !== 'parquet');
      const allOrgUnits = ou === undefined && given.filters.ou === undefined;
      if (filtering) {
        const rows = aggregateOverFilters(current.index, planned, table.spec.statistics);
        if (rows.length > ANALYTICS_ROW_LIMIT)
          throw new HttpError(
            'BadRequest',
            `The query answers ${rows.length} rows, more than the ${ANALYTICS_ROW_LIMIT} a JSON or CSV answer holds; name fewer items of its dimensions`,
          );
        if (format === 'csv') return reply.type('text/csv; charset=utf-8').send(aggregatedCsv(rows, planned.filtered));
        return reply
          .type('application/json; charset=utf-8')
          .send(current.answers.aggregated(rows, planned.dimensions, planned.filtered, allOrgUnits));
      }
      const selected = current.index.select(planned.query);
      if (format === 'parquet') {
        reply.header('content-disposition', `attachment; filename="${name}.parquet"`);
        return reply
          .type(MEDIA_TYPES.parquet)
          .send(Buffer.from(encodeAnalyticsTable(Array.from(selected, (i) => current.index.rows[i]!))));
      }
      if (selected.length > ANALYTICS_ROW_LIMIT) {
        const search = new URLSearchParams(
          Object.entries({ ou, pe, stat }).filter(([, v]) => v !== undefined) as [string, string][],
        );
        const download = `${publicBaseUrl(request, app.stratus.config.server.baseUrl)}/analytics/${name}.parquet${search.size ? `?${search}` : ''}`;
        throw new HttpError(
          'BadRequest',
          `The query selects ${selected.length} rows, more than the ${ANALYTICS_ROW_LIMIT} a JSON or CSV answer holds; download them as Parquet: ${download}`,
        );
      }
      if (format === 'csv') return reply.type('text/csv; charset=utf-8').send(current.answers.csv(selected));
      return reply
        .type('application/json; charset=utf-8')
        .send(current.answers.answer(selected, planned.dimensions, allOrgUnits));
    },
  });
};
