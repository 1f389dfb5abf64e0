/**
 * The running statistics of a table's open periods: per period type, the period that holds the table's last day,
 * which later days of the dataset extend. A version keeps them (`table-file.ts` stores them beside its year
 * partitions) so that a build appending days folds the new days into them instead of reading the period's earlier
 * days again.
 * Folding adds the new days in time order to the sums of the earlier ones, as a whole build adds them, so the result
 * is the whole build's to the last bit.
 */

/** Per slot (one per org unit and period): what a period's statistics are computed from. */
export interface Accumulators {
  sum: Float64Array;
  count: Float64Array;
  min: Float64Array;
  max: Float64Array;
}

export function accumulators(size: number): Accumulators {
  return {
    sum: new Float64Array(size),
    count: new Float64Array(size),
    min: new Float64Array(size).fill(Infinity),
    max: new Float64Array(size).fill(-Infinity),
  };
}

export interface OpenPeriods {
  /** The last day (YYYY-MM-DD) the accumulators hold. */
  end: string;
  /** The org units, in slot order: a table over other org units cannot fold into them. */
  units: readonly string[];
  /** By `periodType/pe` key: one slot per org unit. */
  periods: ReadonlyMap<string, Accumulators>;
}

/** JSON keeps a double to the last bit (its shortest round-trip form); an empty slot's min and max are null. */
interface OpenPeriodsJson {
  end: string;
  units: string[];
  periods: Record<string, { sum: number[]; count: number[]; min: (number | null)[]; max: (number | null)[] }>;
}

const finiteOrNull = (values: Float64Array) => Array.from(values, (v) => (Number.isFinite(v) ? v : null));

export function encodeOpenPeriods(open: OpenPeriods): string {
  const json: OpenPeriodsJson = { end: open.end, units: [...open.units], periods: {} };
  for (const [key, acc] of open.periods)
    json.periods[key] = {
      sum: Array.from(acc.sum),
      count: Array.from(acc.count),
      min: finiteOrNull(acc.min),
      max: finiteOrNull(acc.max),
    };
  return JSON.stringify(json);
}

export function decodeOpenPeriods(text: string): OpenPeriods {
  const json = JSON.parse(text) as OpenPeriodsJson;
  const periods = new Map<string, Accumulators>();
  for (const [key, { sum, count, min, max }] of Object.entries(json.periods))
    periods.set(key, {
      sum: Float64Array.from(sum),
      count: Float64Array.from(count),
      min: Float64Array.from(min, (v) => v ?? Infinity),
      max: Float64Array.from(max, (v) => v ?? -Infinity),
    });
  return { end: json.end, units: json.units, periods };
}
