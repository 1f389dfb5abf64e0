/**
 * A published AnalyticsTable version held in memory, indexed by org unit and by period, so that a query reads
 * only the rows of the org units or of the periods it names, whichever are fewer.
 */
import type { AnalyticsRow } from '../../../core/analytics/table-file.ts';
import type { AnalyticsStatistic } from '../../../core/resources/analytics-table/schema.ts';

export interface AnalyticsQuery {
  ou?: ReadonlySet<string>;
  pe?: ReadonlySet<string>;
  stat?: ReadonlySet<AnalyticsStatistic>;
  /** Leave out the rows without a value, as DHIS2's analytics answers do. */
  withValue: boolean;
}

function groupedBy(rows: readonly AnalyticsRow[], key: 'ou' | 'pe'): Map<string, Int32Array> {
  const groups = new Map<string, number[]>();
  rows.forEach((row, i) => {
    const group = groups.get(row[key]);
    if (group) group.push(i);
    else groups.set(row[key], [i]);
  });
  return new Map([...groups].map(([k, indices]) => [k, Int32Array.from(indices)]));
}

export class AnalyticsTableIndex {
  readonly rows: readonly AnalyticsRow[];
  readonly #byOu: Map<string, Int32Array>;
  readonly #byPe: Map<string, Int32Array>;

  constructor(rows: readonly AnalyticsRow[]) {
    this.rows = rows;
    this.#byOu = groupedBy(rows, 'ou');
    this.#byPe = groupedBy(rows, 'pe');
  }

  hasPeriod(pe: string): boolean {
    return this.#byPe.has(pe);
  }

  /** The period ids of the table, in the table's order (by type, then in time order). */
  get periods(): string[] {
    return [...this.#byPe.keys()];
  }

  /** Indices of the rows the query selects, in the table's order (org unit, period type, period, statistic). */
  select(query: AnalyticsQuery): Int32Array {
    const candidates = this.#candidates(query);
    const selected: number[] = [];
    const take = (i: number) => {
      const row = this.rows[i]!;
      if (query.ou && !query.ou.has(row.ou)) return;
      if (query.pe && !query.pe.has(row.pe)) return;
      if (query.stat && !query.stat.has(row.stat)) return;
      if (query.withValue && row.value === null) return;
      selected.push(i);
    };
    if (candidates) for (const group of candidates) for (const i of group) take(i);
    else for (let i = 0; i < this.rows.length; i++) take(i);
    // One group, or every row, is already in the table's order.
    const ordered = Int32Array.from(selected);
    return candidates && candidates.length > 1 ? ordered.sort() : ordered;
  }

  /** The index groups holding every selected row, from the side that names fewer rows; undefined: all rows. */
  #candidates({ ou, pe }: AnalyticsQuery): Int32Array[] | undefined {
    const groupsOf = (keys: ReadonlySet<string> | undefined, index: Map<string, Int32Array>) =>
      keys && [...keys].flatMap((key) => index.get(key) ?? []);
    const byOu = groupsOf(ou, this.#byOu);
    const byPe = groupsOf(pe, this.#byPe);
    const size = (groups: Int32Array[] | undefined) =>
      groups ? groups.reduce((n, group) => n + group.length, 0) : Infinity;
    return size(byOu) <= size(byPe) ? byOu : byPe;
  }
}
