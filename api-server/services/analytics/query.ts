/**
 * An analytics query's `ou`, `pe` and `stat` parameters (DHIS2's `;`-separated dimension items) read against a
 * loaded table: the rows they select and the dimension items the answer lists. Bad items are a 400 naming them.
 */
import { analyticsStatistics, type AnalyticsStatistic } from '../../../core/resources/analytics-table/schema.ts';
import { HttpError } from '../../errors.ts';
import { resolveOrgUnits, UnknownOrgUnitError } from './org-units.ts';
import { resolvePeriods, UnknownPeriodError, relativePeriods } from './periods.ts';
import type { AnswerDimensions } from './response.ts';
import type { AnalyticsQuery } from './table-index.ts';
import type { LoadedTable } from './tables.ts';

export interface AnalyticsParameters {
  ou?: string | undefined;
  pe?: string | undefined;
  stat?: string | undefined;
}

export interface PlannedQuery {
  query: AnalyticsQuery;
  dimensions: AnswerDimensions;
}

/** DHIS2's dimension ids and the parameters they stand for: `dx`, the data dimension, is the table's statistic. */
const DIMENSION_PARAMETERS = { dx: 'stat', ou: 'ou', pe: 'pe' } as const;

/**
 * The parameters of a query that may also name its dimensions as DHIS2 does, `dimension=ou:ID1;ID2` (repeated, one
 * per dimension): each becomes its parameter. A dimension given twice, or both ways, is a 400 naming it.
 */
export function withDimensions(
  parameters: AnalyticsParameters & { dimension?: string | string[] | undefined },
): AnalyticsParameters {
  const { dimension, ...named } = parameters;
  const resolved: AnalyticsParameters = { ...named };
  // Where each parameter was given, for the message of a second time.
  const givenAs = new Map(
    Object.keys(named).flatMap((key) =>
      resolved[key as keyof AnalyticsParameters] === undefined ? [] : [[key, `${key}=`]],
    ),
  );
  for (const item of dimension === undefined ? [] : [dimension].flat()) {
    const colon = item.indexOf(':');
    const id = colon < 0 ? item : item.slice(0, colon);
    if (!Object.hasOwn(DIMENSION_PARAMETERS, id))
      throw new HttpError(
        'BadRequest',
        `dimension ${id} is not a dimension of the table; expected ${Object.keys(DIMENSION_PARAMETERS).join(', ')} (dimension=ou:ID1;ID2)`,
      );
    if (colon < 0 || colon === item.length - 1)
      throw new HttpError('BadRequest', `dimension ${id} has no items; write dimension=${id}:ITEM1;ITEM2`);
    const parameter = DIMENSION_PARAMETERS[id as keyof typeof DIMENSION_PARAMETERS];
    const earlier = givenAs.get(parameter);
    if (earlier !== undefined)
      throw new HttpError(
        'BadRequest',
        `dimension ${id} is given twice, as ${earlier} and as dimension=${id}:; give its items once`,
      );
    givenAs.set(parameter, `dimension=${id}:`);
    resolved[parameter] = item.slice(colon + 1);
  }
  return resolved;
}

const itemsOf = (name: string, value: string) => {
  const items = value.split(';').map((item) => item.trim());
  if (items.some((item) => item === ''))
    throw new HttpError('BadRequest', `${name} has an empty item; separate items with ;`);
  return items;
};

function periodsOf(table: LoadedTable, value: string, now: Date): string[] {
  const items = itemsOf('pe', value);
  try {
    const ids = resolvePeriods(items, now);
    // A relative period may reach past the table's last period; a period named outright must be in the table.
    const missing = items.find((item) => !Object.hasOwn(relativePeriods, item) && !table.index.hasPeriod(item));
    if (missing !== undefined) throw new HttpError('BadRequest', `pe ${missing} is not a period of the table`);
    return ids;
  } catch (err) {
    if (err instanceof UnknownPeriodError) throw new HttpError('BadRequest', err.message);
    throw err;
  }
}

function orgUnitsOf(table: LoadedTable, value: string): string[] {
  try {
    return resolveOrgUnits(table.orgUnits, itemsOf('ou', value));
  } catch (err) {
    if (err instanceof UnknownOrgUnitError) throw new HttpError('BadRequest', err.message);
    throw err;
  }
}

function statisticsOf(offered: readonly AnalyticsStatistic[], value: string): AnalyticsStatistic[] {
  const items = itemsOf('stat', value);
  for (const item of items)
    if (!offered.includes(item as AnalyticsStatistic))
      throw new HttpError(
        'BadRequest',
        analyticsStatistics.includes(item as AnalyticsStatistic)
          ? `stat ${item} is not a statistic of the table, which has ${offered.join(', ')}`
          : `stat ${item} is not a statistic; expected ${analyticsStatistics.join(', ')}`,
      );
  return [...new Set(items as AnalyticsStatistic[])];
}

/** `statistics`: the table's (`spec.statistics`); `withValue`: leave out the rows without a value. */
export function planQuery(
  table: LoadedTable,
  statistics: readonly AnalyticsStatistic[],
  parameters: AnalyticsParameters,
  now: Date,
  withValue: boolean,
): PlannedQuery {
  const ou = parameters.ou === undefined ? undefined : orgUnitsOf(table, parameters.ou);
  const pe = parameters.pe === undefined ? undefined : periodsOf(table, parameters.pe, now);
  const stat = parameters.stat === undefined ? undefined : statisticsOf(statistics, parameters.stat);
  return {
    query: {
      ...(ou && { ou: new Set(ou) }),
      ...(pe && { pe: new Set(pe) }),
      ...(stat && { stat: new Set(stat) }),
      withValue,
    },
    dimensions: {
      dx: stat ?? [...statistics],
      ou: ou ?? [...table.orgUnits.byId.keys()],
      pe: pe ?? [...table.index.periods],
    },
  };
}
