/**
 * An analytics query's `ou`, `pe` and `stat` parameters (DHIS2's `;`-separated dimension items) read against a
 * loaded table: the rows they select and the dimension items the answer lists. Bad items are a 400 naming them.
 */
import { analyticsStatistics, type AnalyticsStatistic } from '../../../core/resources/analytics-table/schema.ts';
import { parseDhis2Period } from '../../../core/periods/dhis2.ts';
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
  /** The items of every dimension, those used as filters included (DHIS2 lists them in `metaData` too). */
  dimensions: AnswerDimensions;
  /** The dimensions used as filters: not columns of the answer, which aggregates over their items. */
  filtered: ReadonlySet<DimensionId>;
}

/** DHIS2's dimension ids and the parameters they stand for: `dx`, the data dimension, is the table's statistic. */
const DIMENSION_PARAMETERS = { dx: 'stat', ou: 'ou', pe: 'pe' } as const;

type DimensionId = keyof typeof DIMENSION_PARAMETERS;

/** A query's dimensions and filters, each as the parameter it stands for. */
export interface DimensionedParameters {
  parameters: AnalyticsParameters;
  /** The dimensions used as filters (DHIS2's `filter=ou:ID1;ID2`): the answer aggregates over their items. */
  filters: AnalyticsParameters;
}

/** `ou:ID1;ID2` of a `dimension` or `filter` parameter (`given`): the dimension and its items. */
function dimensionItem(given: 'dimension' | 'filter', item: string): { id: DimensionId; items: string } {
  const colon = item.indexOf(':');
  const id = colon < 0 ? item : item.slice(0, colon);
  if (!Object.hasOwn(DIMENSION_PARAMETERS, id))
    throw new HttpError(
      'BadRequest',
      `${given} ${id} is not a dimension of the table; expected ${Object.keys(DIMENSION_PARAMETERS).join(', ')} (${given}=ou:ID1;ID2)`,
    );
  if (colon < 0 || colon === item.length - 1)
    throw new HttpError('BadRequest', `${given} ${id} has no items; write ${given}=${id}:ITEM1;ITEM2`);
  return { id: id as DimensionId, items: item.slice(colon + 1) };
}

const repeated = (value: string | string[] | undefined) => (value === undefined ? [] : [value].flat());

/**
 * The parameters of a query that may also name its dimensions as DHIS2 does, `dimension=ou:ID1;ID2` (repeated, one
 * per dimension): each becomes its parameter; and DHIS2's `filter=ou:ID1;ID2`, a dimension whose items the answer
 * aggregates over. A dimension given twice, in either form, or both as a dimension and as a filter, is a 400
 * naming it.
 */
export function withDimensions(
  parameters: AnalyticsParameters & {
    dimension?: string | string[] | undefined;
    filter?: string | string[] | undefined;
  },
): DimensionedParameters {
  const { dimension, filter, ...named } = parameters;
  const resolved: AnalyticsParameters = { ...named };
  const filters: AnalyticsParameters = {};
  // Where each parameter was given, for the message of a second time.
  const givenAs = new Map(
    Object.keys(named).flatMap((key) =>
      resolved[key as keyof AnalyticsParameters] === undefined ? [] : [[key, `${key}=`]],
    ),
  );
  const take = (given: 'dimension' | 'filter', item: string) => {
    const { id, items } = dimensionItem(given, item);
    const parameter = DIMENSION_PARAMETERS[id];
    const earlier = givenAs.get(parameter);
    if (earlier !== undefined)
      throw new HttpError(
        'BadRequest',
        `dimension ${id} is given twice, as ${earlier} and as ${given}=${id}:; give its items once, as a dimension or as a filter`,
      );
    givenAs.set(parameter, `${given}=${id}:`);
    (given === 'dimension' ? resolved : filters)[parameter] = items;
  };
  for (const item of repeated(dimension)) take('dimension', item);
  for (const item of repeated(filter)) take('filter', item);
  return { parameters: resolved, filters };
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

/** Refuses a filter's periods of several types (`2024` and `202401`): their aggregate would count days twice. */
function checkOneType(ids: readonly string[]) {
  const types = [...new Set(ids.map((id) => parseDhis2Period(id)?.type))];
  if (types.length > 1)
    throw new HttpError(
      'BadRequest',
      `filter pe mixes period types (${types.join(', ')}); the periods a filter aggregates over must be of one type`,
    );
}

/**
 * `statistics`: the table's (`spec.statistics`); `filters`: the dimensions used as filters, their items selected
 * as a dimension's are; `withValue`: leave out the rows without a value.
 */
export function planQuery(
  table: LoadedTable,
  statistics: readonly AnalyticsStatistic[],
  { parameters, filters }: DimensionedParameters,
  now: Date,
  withValue: boolean,
): PlannedQuery {
  const given = { ...parameters, ...filters };
  const ou = given.ou === undefined ? undefined : orgUnitsOf(table, given.ou);
  const pe = given.pe === undefined ? undefined : periodsOf(table, given.pe, now);
  const stat = given.stat === undefined ? undefined : statisticsOf(statistics, given.stat);
  if (filters.pe !== undefined) checkOneType(pe!);
  if (filters.stat !== undefined && stat!.length > 1)
    throw new HttpError(
      'BadRequest',
      `filter dx takes one statistic, not ${stat!.join(', ')}: statistics do not aggregate into one another`,
    );
  const filtered = new Set(
    (Object.keys(DIMENSION_PARAMETERS) as DimensionId[]).filter(
      (id) => filters[DIMENSION_PARAMETERS[id]] !== undefined,
    ),
  );
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
    filtered,
  };
}
