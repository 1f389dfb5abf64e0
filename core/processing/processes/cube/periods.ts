/**
 * Calendar periods of `aggregate_temporal_period`, `climatological_normal` and `anomaly`: each instant falls in
 * one period with an ordinal (consecutive periods have consecutive ordinals, so a range of them is complete) and
 * the label the descriptions give (`2020-153` for a day, `2024-03` for the third dekad of 2024, `2023-djf` for
 * the winter that starts in December 2023). Weeks are ISO 8601 weeks; dekads count 1 to 36 in a year.
 */
export const PERIODS = [
  'hour',
  'day',
  'week',
  'dekad',
  'month',
  'season',
  'tropical-season',
  'year',
  'decade',
  'decade-ad',
] as const;
export type Period = (typeof PERIODS)[number];

const DAY = 86_400_000;
/** In the order of a season year: spring to autumn of a year, then the winter that starts in its December. */
const SEASONS = ['mam', 'jja', 'son', 'djf'];
const TROPICAL = ['mjjaso', 'ndjfma'];
const pad = (n: number, width = 2) => String(n).padStart(width, '0');

function utc(instant: number) {
  const d = new Date(instant);
  return { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate() };
}

function dayOfYear(instant: number): number {
  const { year } = utc(instant);
  return Math.floor((instant - Date.UTC(year, 0, 1)) / DAY) + 1;
}

/** (year, index in SEASONS) of the season an instant is in: December opens the winter of its own year. */
function season(month: number, year: number): [number, number] {
  if (month === 12) return [year, 3];
  if (month <= 2) return [year - 1, 3];
  return [year, Math.floor(month / 3) - 1];
}

function tropical(month: number, year: number): [number, number] {
  if (month >= 5 && month <= 10) return [year, 0];
  return month >= 11 ? [year, 1] : [year - 1, 1];
}

export function periodOrdinal(period: Period, instant: number): number {
  const { year, month, day } = utc(instant);
  switch (period) {
    case 'hour':
      return Math.floor(instant / 3_600_000);
    case 'day':
      return Math.floor(instant / DAY);
    case 'week':
      // Weeks since Monday 1969-12-29 (1970-01-01 was a Thursday).
      return Math.floor((Math.floor(instant / DAY) + 3) / 7);
    case 'dekad':
      return (year * 12 + month - 1) * 3 + (day <= 10 ? 0 : day <= 20 ? 1 : 2);
    case 'month':
      return year * 12 + month - 1;
    case 'season': {
      const [y, s] = season(month, year);
      return y * 4 + s;
    }
    case 'tropical-season': {
      const [y, s] = tropical(month, year);
      return y * 2 + s;
    }
    case 'year':
      return year;
    case 'decade':
      return Math.floor(year / 10);
    case 'decade-ad':
      return Math.floor((year - 1) / 10);
  }
}

export function periodLabel(period: Period, ordinal: number): string {
  switch (period) {
    case 'hour': {
      const instant = ordinal * 3_600_000;
      const { year, month, day } = utc(instant);
      return `${pad(year, 4)}-${pad(month)}-${pad(day)}-${pad(new Date(instant).getUTCHours())}`;
    }
    case 'day': {
      const instant = ordinal * DAY;
      return `${pad(utc(instant).year, 4)}-${pad(dayOfYear(instant), 3)}`;
    }
    case 'week': {
      // The Thursday of the week decides its ISO year and number.
      const thursday = ordinal * 7 * DAY;
      return `${pad(utc(thursday).year, 4)}-${pad(Math.floor((dayOfYear(thursday) - 1) / 7) + 1)}`;
    }
    case 'dekad':
      return `${pad(Math.floor(ordinal / 36), 4)}-${pad((ordinal % 36) + 1)}`;
    case 'month':
      return `${pad(Math.floor(ordinal / 12), 4)}-${pad((ordinal % 12) + 1)}`;
    case 'season':
      return `${pad(Math.floor(ordinal / 4), 4)}-${SEASONS[ordinal % 4]}`;
    case 'tropical-season':
      return `${pad(Math.floor(ordinal / 2), 4)}-${TROPICAL[ordinal % 2]}`;
    case 'year':
      return pad(ordinal, 4);
    case 'decade':
      return pad(ordinal * 10, 4);
    case 'decade-ad':
      return pad(ordinal * 10 + 1, 4);
  }
}

/**
 * The period of the year an instant is in, as `climatological_normal` labels it, or undefined for a day that no
 * label of the 365-day year stands for (29 February).
 */
export function periodOfYear(
  period: 'day' | 'month' | 'season' | 'tropical-season',
  instant: number,
): string | undefined {
  const { year, month, day } = utc(instant);
  switch (period) {
    case 'day': {
      if (month === 2 && day === 29) return undefined;
      return pad(Math.floor((Date.UTC(2001, month - 1, day) - Date.UTC(2001, 0, 1)) / DAY) + 1, 3);
    }
    case 'month':
      return pad(month);
    case 'season':
      return SEASONS[season(month, year)[1]]!;
    case 'tropical-season':
      return TROPICAL[tropical(month, year)[1]]!;
  }
}

/** Every label `periodOfYear` gives, in calendar order. */
export function periodsOfYear(period: 'day' | 'month' | 'season' | 'tropical-season'): string[] {
  switch (period) {
    case 'day':
      return Array.from({ length: 365 }, (_, i) => pad(i + 1, 3));
    case 'month':
      return Array.from({ length: 12 }, (_, i) => pad(i + 1));
    case 'season':
      return ['djf', 'mam', 'jja', 'son'];
    case 'tropical-season':
      return ['ndjfma', 'mjjaso'];
  }
}
