/**
 * A delivery's analytics table source as asked for (`POST /exports/{id}` with `table`), checked against the table's
 * served version before any delivery exists: the table, its statistic, period type, periods (relative periods
 * resolved now) and org units, so that a bad one is a 4xx naming it, never a failed delivery.
 */
import type { Cluster } from '../../../core/cluster/port.ts';
import { analyticsTableKind, type AnalyticsTable } from '../../../core/resources/analytics-table/schema.ts';
import type { DeliveryTableSource } from '../../../core/resources/delivery/schema.ts';
import { featureCollectionKind, type FeatureCollection } from '../../../core/resources/feature-collection/schema.ts';
import { storeFile } from '../../../core/stores/layout.ts';
import { HttpError } from '../../errors.ts';
import { readOrgUnits } from '../analytics/org-units.ts';
import { relativePeriods, resolvePeriods, UnknownPeriodError } from '../analytics/periods.ts';
import { servedPeriods } from '../analytics/served-periods.ts';

export interface TableSourceRequest {
  name: string;
  statistic: DeliveryTableSource['statistic'];
  period_type: DeliveryTableSource['periodType'];
  periods: string[];
  org_units?: string[] | undefined;
}

/**
 * The org units named that the version has not: the features of the collection file it was computed with, by the
 * collection's id property, as `GET /analytics/{table}` knows them.
 */
async function unknownOrgUnits(
  cluster: Cluster,
  stores: { namespace: string; storageRoot: string },
  table: AnalyticsTable,
  featureCollectionPath: string,
  named: readonly string[],
): Promise<string[]> {
  const collection = await cluster.get<FeatureCollection>(
    featureCollectionKind,
    table.spec.featureCollection,
    stores.namespace,
  );
  const { byId } = await readOrgUnits(
    storeFile(stores.storageRoot, featureCollectionPath),
    collection?.spec.idProperty ?? '',
  );
  return named.filter((id) => !byId.has(id));
}

export async function resolveTableSource(
  cluster: Cluster,
  stores: { namespace: string; storageRoot: string },
  asked: TableSourceRequest,
  now: Date,
): Promise<DeliveryTableSource> {
  const { namespace } = stores;
  const table = await cluster.get<AnalyticsTable>(analyticsTableKind, asked.name, namespace);
  if (!table) throw new HttpError('NotFound', `Analytics table ${asked.name} not found`);
  const version = table.status?.table;
  if (!version)
    throw new HttpError('Conflict', `Analytics table ${asked.name} is not built yet; its first build publishes it`);
  if (!table.spec.statistics.includes(asked.statistic))
    throw new HttpError(
      'BadRequest',
      `table.statistic ${asked.statistic} is not a statistic of table ${asked.name}, which has ${table.spec.statistics.join(', ')}`,
    );
  if (!table.spec.periodTypes.includes(asked.period_type))
    throw new HttpError(
      'BadRequest',
      `table.period_type ${asked.period_type} is not a period type of table ${asked.name}, which has ${table.spec.periodTypes.join(', ')}`,
    );
  let ids: string[];
  try {
    ids = resolvePeriods(asked.periods, now);
  } catch (err) {
    if (err instanceof UnknownPeriodError) throw new HttpError('BadRequest', `table.periods: ${err.message}`);
    throw err;
  }
  const served = new Set(servedPeriods(table)[asked.period_type]!.map((p) => p.id));
  // A period named outright must be one of the table's; a relative one may reach past them, not miss them all.
  for (const item of asked.periods) {
    const relative = Object.hasOwn(relativePeriods, item);
    const named = relative ? resolvePeriods([item], now) : [item];
    if (!named.some((id) => served.has(id)))
      throw new HttpError(
        'BadRequest',
        relative
          ? `table.periods ${item} (${named[0]} to ${named.at(-1)}) holds no ${asked.period_type} period of table ${asked.name}`
          : `table.periods ${item} is not a ${asked.period_type} period of table ${asked.name}`,
      );
  }
  const orgUnits = asked.org_units && [...new Set(asked.org_units)];
  const unknown = orgUnits
    ? await unknownOrgUnits(cluster, stores, table, version.featureCollectionPath, orgUnits)
    : [];
  if (unknown.length > 0)
    throw new HttpError(
      'BadRequest',
      `table.org_units ${unknown.join(', ')} ${unknown.length === 1 ? 'is not an org unit' : 'are not org units'} of table ${asked.name}`,
    );
  return {
    name: asked.name,
    version: { id: version.id, path: version.path },
    statistic: asked.statistic,
    periodType: asked.period_type,
    periods: ids.filter((id) => served.has(id)),
    ...(orgUnits && { orgUnits }),
  };
}
