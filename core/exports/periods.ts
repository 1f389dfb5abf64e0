/**
 * How periods of the types exports deliver (daily, weekly, monthly, yearly) fall into coarser ones. Their DHIS2 ids
 * are read and written by core/periods/dhis2.ts.
 */
import { formatPeriod, nextPeriod, parsePeriod, type Period } from '../periods/index.ts';
import type { ExportPeriodType } from '../resources/export/schema.ts';

const ORDER: ExportPeriodType[] = ['daily', 'weekly', 'monthly', 'yearly'];

/**
 * Whether periods of `fine` tile periods of `coarse` exactly (days tile weeks, months and years; months tile years),
 * which is when finer values can be aggregated into the coarser period. Weeks tile neither months nor years.
 */
export function tiles(fine: ExportPeriodType, coarse: ExportPeriodType): boolean {
  if (fine === coarse) return true;
  if (fine === 'daily') return true;
  return fine === 'monthly' && coarse === 'yearly';
}

export const isFiner = (a: ExportPeriodType, b: ExportPeriodType) => ORDER.indexOf(a) < ORDER.indexOf(b);

/** The period of `type` that holds `period`'s start. */
export function enclosing(period: Period, type: ExportPeriodType): Period {
  return parsePeriod(type, formatPeriod({ type, start: period.start }));
}

/** How many periods of `fine` make up `coarse`. */
export function periodsIn(coarse: Period, fine: ExportPeriodType): number {
  const end = nextPeriod(coarse).start.getTime();
  let n = 0;
  for (let p = enclosing(coarse, fine); p.start.getTime() < end; p = nextPeriod(p)) n++;
  return n;
}
