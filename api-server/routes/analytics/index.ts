import type { FastifyReply } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { isRelativePeriod, resolveRelativePeriod } from '../../../core/analytics/relative-periods.ts';
import { encodeAnalyticsTable, type AnalyticsRow } from '../../../core/analytics/table-file.ts';
import { parseDhis2Period } from '../../../core/exports/periods.ts';
import { analyticsTableKind, type AnalyticsTable } from '../../../core/resources/analytics-table/schema.ts';
import { featureCollectionKind, type FeatureCollection } from '../../../core/resources/feature-collection/schema.ts';
import { HttpError } from '../../errors.ts';
import { markNativeApiRoutes } from '../../plugins/app/errors.ts';
import { publicBaseUrl } from '../../public-url.ts';
import { commonErrorResponses, errorDetailSchema } from '../../schemas.ts';
import { TableIndexes, type TableIndex } from '../../services/analytics/table-index.ts';
import { analyticsQuerySchema, analyticsResponseSchema } from './schemas.ts';

/** Rows a JSON or CSV answer may hold; a larger query is pointed to the Parquet download. */
export const ANALYTICS_ROW_LIMIT = 50_000;

const PARQUET = 'application/vnd.apache.parquet';
type Format = 'json' | 'csv' | 'parquet';

const HEADERS = [
  { name: 'dx', column: 'Data', valueType: 'TEXT', type: 'java.lang.String', hidden: false, meta: true },
  { name: 'ou', column: 'Organisation unit', valueType: 'TEXT', type: 'java.lang.String', hidden: false, meta: true },
  { name: 'pe', column: 'Period', valueType: 'TEXT', type: 'java.lang.String', hidden: false, meta: true },
  { name: 'value', column: 'Value', valueType: 'NUMBER', type: 'java.lang.Double', hidden: false, meta: false },
];

const split = (text: string | undefined) =>
  text
    ?.split(';')
    .map((s) => s.trim())
    .filter(Boolean);

/** The representation: `format`, else a `.csv` / `.parquet` / `.json` suffix of the table, else Accept. */
function formatOf(suffix: string | undefined, format: Format | undefined, accept: string | undefined): Format {
  if (format) return format;
  if (suffix) return suffix as Format;
  if (accept?.includes(PARQUET)) return 'parquet';
  return accept?.includes('text/csv') && !accept.includes('application/json') ? 'csv' : 'json';
}

/** The periods a `pe` item names, refused when it is no period id or of a type the table does not hold. */
function periodsOf(item: string, table: AnalyticsTable, today: Date): string[] {
  const types = table.spec.periodTypes;
  if (isRelativePeriod(item)) {
    const { type, ids } = resolveRelativePeriod(item, today);
    if (!types.includes(type))
      throw new HttpError(
        'BadRequest',
        `Relative period ${item} is ${type}; table ${table.metadata.name} holds ${types.join(', ')} periods`,
      );
    return ids;
  }
  const period = parseDhis2Period(item);
  if (!period) throw new HttpError('BadRequest', `Period ${item} is neither a DHIS2 period id nor a relative period`);
  if (!types.includes(period.type as (typeof types)[number]))
    throw new HttpError(
      'BadRequest',
      `Period ${item} is ${period.type}; table ${table.metadata.name} holds ${types.join(', ')} periods`,
    );
  return [item];
}

function select(index: TableIndex, table: AnalyticsTable, query: z.infer<typeof analyticsQuerySchema>, today: Date) {
  const ous = split(query.ou);
  for (const ou of ous ?? [])
    if (!index.names.has(ou))
      throw new HttpError('BadRequest', `Org unit ${ou} is not in table ${table.metadata.name}`);
  const stats = split(query.stat);
  for (const stat of stats ?? [])
    if (!(table.spec.statistics as string[]).includes(stat))
      throw new HttpError(
        'BadRequest',
        `Statistic ${stat} is not in table ${table.metadata.name} (${table.spec.statistics.join(', ')})`,
      );
  const pes = split(query.pe)?.flatMap((item) => periodsOf(item, table, today));
  const candidates =
    ous && (!pes || ous.length <= pes.length)
      ? ous.flatMap((ou) => index.byOu.get(ou) ?? [])
      : pes
        ? [...new Set(pes)].flatMap((pe) => index.byPe.get(pe) ?? [])
        : index.rows.map((_, i) => i);
  const [ouSet, peSet, statSet] = [ous && new Set(ous), pes && new Set(pes), stats && new Set(stats)];
  return candidates
    .map((i) => index.rows[i]!)
    .filter((r) => (!ouSet || ouSet.has(r.ou)) && (!peSet || peSet.has(r.pe)) && (!statSet || statSet.has(r.stat)));
}

/** A value as DHIS2's analytics writes it: a decimal string. */
const valueText = (value: number) => String(Math.round(value * 1e6) / 1e6);

function dhis2Answer(rows: AnalyticsRow[], index: TableIndex, table: AnalyticsTable) {
  const valued = rows.filter((r) => r.value !== null);
  const dimension = (key: 'stat' | 'ou' | 'pe') => [...new Set(valued.map((r) => r[key]))];
  // In the table's order: by period type, then in time.
  const pe = dimension('pe');
  const items: Record<string, { name: string }> = {};
  for (const stat of dimension('stat')) items[stat] = { name: `${table.spec.source.dataset} ${stat}` };
  for (const ou of dimension('ou')) items[ou] = { name: index.names.get(ou) ?? ou };
  for (const id of pe) items[id] = { name: id };
  return {
    headers: HEADERS,
    metaData: { items, dimensions: { dx: dimension('stat'), ou: dimension('ou'), pe } },
    rows: valued.map((r) => [r.stat, r.ou, r.pe, valueText(r.value!)]),
    headerWidth: HEADERS.length,
    width: HEADERS.length,
    height: valued.length,
  };
}

/** CSV and Parquet bodies, which the route's JSON response schema does not describe. */
const sendAs = (reply: FastifyReply, type: string, body: Buffer | string) => reply.type(type).send(body);

const csvOf = (rows: AnalyticsRow[]) =>
  [
    'dx,ou,pe,value',
    ...rows.filter((r) => r.value !== null).map((r) => `${r.stat},${r.ou},${r.pe},${valueText(r.value!)}`),
  ].join('\n') + '\n';

/** Analytics tables: precomputed org unit × period statistics (docs/analytics.md). */
export const analyticsRoutes: FastifyPluginAsyncZod = async (app) => {
  markNativeApiRoutes(app);
  const { cluster, config, namespace, storageRoot } = app.stratus;
  const indexes = new TableIndexes(storageRoot);

  app.get(
    '/analytics/:table',
    {
      schema: {
        summary: "An analytics table's values, in the shape of DHIS2's analytics",
        description:
          'Rows `[dx, ou, pe, value]` of the table (docs/analytics.md), filtered by `ou`, `pe` and `stat` as DHIS2 ' +
          "writes dimension items; `headers` and `metaData` (names of the org units) as DHIS2's /api/analytics " +
          'answers. CSV and Parquet (`format`, Accept, or a `.csv` / `.parquet` suffix); Parquet has the ' +
          `table's own columns and no row limit. 404 for an unknown table, 409 for a table not built yet, 400 naming ` +
          `an unknown org unit, statistic or malformed period, or when more than ${ANALYTICS_ROW_LIMIT} rows would be answered.`,
        tags: ['Analytics'],
        params: z.object({ table: z.string().regex(/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?(\.(json|csv|parquet))?$/) }),
        querystring: analyticsQuerySchema,
        produces: ['application/json', 'text/csv', PARQUET],
        response: {
          200: analyticsResponseSchema,
          400: errorDetailSchema,
          404: errorDetailSchema,
          409: errorDetailSchema,
          ...commonErrorResponses,
        },
      },
    },
    async (request, reply) => {
      const [name, suffix] = request.params.table.split('.') as [string, string | undefined];
      const table = await cluster.get<AnalyticsTable>(analyticsTableKind, name, namespace);
      if (!table) throw new HttpError('NotFound', `Analytics table ${name} not found`);
      if (!table.status?.table) throw new HttpError('Conflict', `Analytics table ${name} has not been built yet`);
      const collection = await cluster.get<FeatureCollection>(
        featureCollectionKind,
        table.spec.featureCollection,
        namespace,
      );
      const index = await indexes.of(table, collection?.spec.idProperty ?? 'id');
      const rows = select(index, table, request.query, new Date());
      const format = formatOf(suffix, request.query.format, request.headers.accept);
      if (format === 'parquet') return sendAs(reply, PARQUET, Buffer.from(encodeAnalyticsTable(rows)));
      if (rows.length > ANALYTICS_ROW_LIMIT) {
        const url = new URL(`${publicBaseUrl(request, config.server.baseUrl)}/analytics/${name}.parquet`);
        for (const key of ['ou', 'pe', 'stat'] as const)
          if (request.query[key]) url.searchParams.set(key, request.query[key]);
        throw new HttpError(
          'BadRequest',
          `The query selects ${rows.length} rows, more than ${ANALYTICS_ROW_LIMIT}: download them as Parquet from ${url.href}`,
        );
      }
      if (format === 'csv') return sendAs(reply, 'text/csv; charset=utf-8', csvOf(rows));
      return dhis2Answer(rows, index, table);
    },
  );
};
