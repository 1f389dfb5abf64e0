/**
 * The rows of a query with filters (DHIS2's `filter=ou:ID1;ID2`): one row per statistic and item of each
 * dimension that is not a filter, its value the statistic aggregated over the filters' items, as each statistic
 * composes: `sum` the sum of the sums, `min` the least minimum, `max` the greatest maximum, `count` the sum of the
 * counts (days with a value), and `mean` the mean of the means weighted by their counts where the table has `count`
 * (so over periods, the mean of every day's value), else their plain mean, as DHIS2 averages. The table keeps no
 * coverage or population weights, so a mean over org units weighs each org unit by its days, not by its area.
 * Items without a value are left out of the aggregate; an aggregate of none has no value and no row.
 */
import type { AnalyticsStatistic } from '../../../core/resources/analytics-table/schema.ts';
import type { PlannedQuery } from './query.ts';
import type { AggregatedRow } from './response.ts';
import type { AnalyticsTableIndex } from './table-index.ts';

interface Aggregate {
  row: Omit<AggregatedRow, 'value'>;
  stat: AnalyticsStatistic;
  /** The sum of the values (each weighted, for a mean), their least and greatest. */
  total: number;
  weights: number;
  least: number;
  greatest: number;
}

const combined = (aggregate: Aggregate): number | undefined => {
  if (aggregate.weights === 0) return aggregate.stat === 'count' ? aggregate.total : undefined;
  switch (aggregate.stat) {
    case 'min':
      return aggregate.least;
    case 'max':
      return aggregate.greatest;
    case 'mean':
      return aggregate.total / aggregate.weights;
    default:
      return aggregate.total;
  }
};

/** `statistics`: the table's, which say whether counts weigh the means. */
export function aggregateOverFilters(
  index: AnalyticsTableIndex,
  { query, filtered }: PlannedQuery,
  statistics: readonly AnalyticsStatistic[],
): AggregatedRow[] {
  const asked = query.stat ?? new Set(statistics);
  const weighted = asked.has('mean') && statistics.includes('count');
  const read = weighted ? new Set([...asked, 'count' as const]) : asked;
  const selected = index.select({ ...query, stat: read, withValue: false });
  const unit = (ou: string, pe: string) => `${ou}\u0000${pe}`;
  const counts = new Map<string, number>();
  if (weighted)
    for (const i of selected) {
      const row = index.rows[i]!;
      if (row.stat === 'count' && row.value !== null) counts.set(unit(row.ou, row.pe), row.value);
    }

  const aggregates = new Map<string, Aggregate>();
  for (const i of selected) {
    const { ou, pe, stat, value } = index.rows[i]!;
    if (!asked.has(stat)) continue;
    const row = {
      ...(!filtered.has('dx') && { dx: stat }),
      ...(!filtered.has('ou') && { ou }),
      ...(!filtered.has('pe') && { pe }),
    };
    const key = [stat, row.ou, row.pe].join('\u0000');
    let aggregate = aggregates.get(key);
    if (!aggregate) {
      aggregate = { row, stat, total: 0, weights: 0, least: Infinity, greatest: -Infinity };
      aggregates.set(key, aggregate);
    }
    if (value === null) continue;
    const weight = stat === 'mean' && weighted ? (counts.get(unit(ou, pe)) ?? 0) : 1;
    aggregate.total += stat === 'mean' ? value * weight : value;
    aggregate.weights += weight;
    aggregate.least = Math.min(aggregate.least, value);
    aggregate.greatest = Math.max(aggregate.greatest, value);
  }
  return [...aggregates.values()].flatMap((aggregate) => {
    const value = combined(aggregate);
    return value === undefined ? [] : [{ ...aggregate.row, value }];
  });
}
