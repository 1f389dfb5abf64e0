/**
 * A published AnalyticsTable version held in memory, indexed by org unit and by period, so that a query reads
 * only the rows of the org units or of the periods it names, whichever are fewer. The filters read typed columns
 * of codes, not the row objects, so that a query touches little memory.
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

/** A column's values as codes (their index in first-seen order) and each value's rows. */
class CodedColumn {
  readonly codes: Int32Array;
  readonly #codeOf = new Map<string, number>();
  readonly #rows: Int32Array[];

  constructor(values: readonly string[]) {
    this.codes = new Int32Array(values.length);
    const rows: number[][] = [];
    values.forEach((value, i) => {
      let code = this.#codeOf.get(value);
      if (code === undefined) {
        code = rows.length;
        this.#codeOf.set(value, code);
        rows.push([]);
      }
      this.codes[i] = code;
      rows[code]!.push(i);
    });
    this.#rows = rows.map((indices) => Int32Array.from(indices));
  }

  /** The values, in first-seen order. */
  get values(): string[] {
    return [...this.#codeOf.keys()];
  }

  has(value: string): boolean {
    return this.#codeOf.has(value);
  }

  /** Which codes `values` are, as a lookup table over the codes; undefined: no filter. */
  mask(values: ReadonlySet<string> | undefined): Uint8Array | undefined {
    if (!values) return undefined;
    const mask = new Uint8Array(this.#codeOf.size);
    for (const value of values) {
      const code = this.#codeOf.get(value);
      if (code !== undefined) mask[code] = 1;
    }
    return mask;
  }

  /** The row groups of `values`; undefined: no filter. */
  groups(values: ReadonlySet<string> | undefined): Int32Array[] | undefined {
    if (!values) return undefined;
    return [...values].flatMap((value) => {
      const code = this.#codeOf.get(value);
      return code === undefined ? [] : [this.#rows[code]!];
    });
  }
}

const rowCount = (groups: Int32Array[] | undefined) =>
  groups ? groups.reduce((n, group) => n + group.length, 0) : Infinity;

export class AnalyticsTableIndex {
  readonly rows: readonly AnalyticsRow[];
  readonly #ou: CodedColumn;
  readonly #pe: CodedColumn;
  readonly #stat: CodedColumn;
  readonly #hasValue: Uint8Array;

  constructor(rows: readonly AnalyticsRow[]) {
    this.rows = rows;
    this.#ou = new CodedColumn(rows.map((row) => row.ou));
    this.#pe = new CodedColumn(rows.map((row) => row.pe));
    this.#stat = new CodedColumn(rows.map((row) => row.stat));
    this.#hasValue = Uint8Array.from(rows, (row) => (row.value === null ? 0 : 1));
  }

  hasPeriod(pe: string): boolean {
    return this.#pe.has(pe);
  }

  /** The period ids of the table, in the table's order (by type, then in time order). */
  get periods(): string[] {
    return this.#pe.values;
  }

  /** Indices of the rows the query selects, in the table's order (org unit, period type, period, statistic). */
  select(query: AnalyticsQuery): Int32Array {
    const [ou, pe, stat] = [this.#ou.mask(query.ou), this.#pe.mask(query.pe), this.#stat.mask(query.stat)];
    const [ouCodes, peCodes, statCodes, hasValue] = [this.#ou.codes, this.#pe.codes, this.#stat.codes, this.#hasValue];
    const byOu = this.#ou.groups(query.ou);
    const byPe = this.#pe.groups(query.pe);
    // The side that names fewer rows; neither: every row.
    const candidates = rowCount(byOu) <= rowCount(byPe) ? byOu : byPe;
    const selected: number[] = [];
    const take = (i: number) => {
      if (ou && !ou[ouCodes[i]!]) return;
      if (pe && !pe[peCodes[i]!]) return;
      if (stat && !stat[statCodes[i]!]) return;
      if (query.withValue && !hasValue[i]) return;
      selected.push(i);
    };
    if (candidates) for (const group of candidates) for (let k = 0; k < group.length; k++) take(group[k]!);
    else for (let i = 0; i < this.rows.length; i++) take(i);
    // One group, or every row, is already in the table's order.
    const ordered = Int32Array.from(selected);
    return candidates && candidates.length > 1 ? ordered.sort() : ordered;
  }
}
