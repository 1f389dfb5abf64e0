/**
 * DHIS2's period ids (`20240105` daily, `2024W5` ISO week, `202401` monthly, `2024` yearly): the one parser and
 * formatter of them, below everything that reads or writes them (exports, analytics tables, DHIS2 JSON results).
 */
import { formatPeriod, parsePeriod, type Period, type PeriodType } from './index.ts';

/** The period types DHIS2 ids name. */
export type Dhis2PeriodType = Extract<PeriodType, 'daily' | 'weekly' | 'monthly' | 'yearly'>;

/** DHIS2's id of the period of `type` that starts at `instant`. */
export function dhis2Period(type: PeriodType, instant: number): string {
  const iso = formatPeriod({ type, start: new Date(instant) });
  if (type === 'weekly') {
    const [year, week] = iso.split('-W');
    return `${year}W${Number(week)}`;
  }
  return iso.replace(/-/g, '');
}

export const dhis2Id = (period: Period) => dhis2Period(period.type, period.start.getTime());

/** The period a DHIS2 id names, or undefined when it names none of the four types. */
export function parseDhis2Period(id: string): (Period & { type: Dhis2PeriodType }) | undefined {
  const day = /^(\d{4})(\d{2})(\d{2})$/.exec(id);
  const week = /^(\d{4})W(\d{1,2})$/.exec(id);
  const month = /^(\d{4})(\d{2})$/.exec(id);
  const [type, native]: [Dhis2PeriodType, string] | [undefined, undefined] = day
    ? ['daily', `${day[1]}-${day[2]}-${day[3]}`]
    : week
      ? ['weekly', `${week[1]}-W${week[2]!.padStart(2, '0')}`]
      : month
        ? ['monthly', `${month[1]}-${month[2]}`]
        : /^\d{4}$/.test(id)
          ? ['yearly', id]
          : [undefined, undefined];
  if (type === undefined) return undefined;
  try {
    return { ...parsePeriod(type, native), type };
  } catch {
    return undefined;
  }
}
