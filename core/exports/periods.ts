/**
 * DHIS2 period ids of the types exports deliver (`20240105` daily, `2024W5` ISO week, `202401` monthly, `2024`
 * yearly), and how finer periods fall into coarser ones.
 */
import { formatPeriod, nextPeriod, parsePeriod, type Period } from '../periods/index.ts';
import { dhis2Period } from '../processing/results/dhis2-json.ts';
import type { ExportPeriodType } from '../resources/export/schema.ts';

const ORDER: ExportPeriodType[] = ['daily', 'weekly', 'monthly', 'yearly'];

/** The period a DHIS2 id names, or undefined when it names none of the four types. */
export function parseDhis2Period(id: string): Period | undefined {
  const native =
    /^(\d{4})(\d{2})(\d{2})$/.exec(id)?.slice(1).join('-') ??
    /^(\d{4})W(\d{1,2})$/
      .exec(id)
      ?.slice(1)
      .reduce((year, week) => `${year}-W${week.padStart(2, '0')}`) ??
    /^(\d{4})(\d{2})$/.exec(id)?.slice(1).join('-') ??
    /^(\d{4})$/.exec(id)?.[1];
  if (native === undefined) return undefined;
  const type: ExportPeriodType = /^\d{8}$/.test(id)
    ? 'daily'
    : id.includes('W')
      ? 'weekly'
      : id.length === 6
        ? 'monthly'
        : 'yearly';
  try {
    return parsePeriod(type, native);
  } catch {
    return undefined;
  }
}

export const dhis2Id = (period: Period) => dhis2Period(period.type as ExportPeriodType, period.start.getTime());

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
