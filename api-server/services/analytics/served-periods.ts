/**
 * The periods of an AnalyticsTable's served version, by period type: every period from the one holding the first
 * day the version covers to the one holding its last (`status.table.periods`), as the build writes them.
 */
import { dhis2Id } from '../../../core/periods/dhis2.ts';
import { formatPeriod, periodRange } from '../../../core/periods/index.ts';
import type { AnalyticsTable } from '../../../core/resources/analytics-table/schema.ts';
import type { ServedPeriod } from '../../views/map.ts';

/** Per period type of the table, its served periods oldest first; none before a version covering days is served. */
export function servedPeriods(table: AnalyticsTable): Record<string, ServedPeriod[]> {
  const covered = table.status?.table?.periods;
  return Object.fromEntries(
    table.spec.periodTypes.map((type) => {
      if (!covered) return [type, []];
      const bound = (day: string) => formatPeriod({ type, start: new Date(`${day}T00:00:00Z`) });
      const periods = periodRange(type, bound(covered.start), bound(covered.end));
      return [type, periods.map((period) => ({ id: dhis2Id(period), name: formatPeriod(period) }))];
    }),
  );
}
