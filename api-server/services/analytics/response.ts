/**
 * The answers of `GET /analytics/{table}`: DHIS2 analytics' JSON (`headers`, `metaData`, `rows`, `width`,
 * `height`, as `/api/analytics` answers them, with the statistic as the data dimension `dx`) and its CSV.
 */
import { formatPeriod } from '../../../core/periods/index.ts';
import { parseDhis2Period } from '../../../core/exports/periods.ts';
import { formatValue } from '../../../core/processing/results/dhis2-json.ts';
import { field } from '../../../core/processing/results/vector.ts';
import type { AnalyticsTableIndex } from './table-index.ts';
import type { OrgUnits } from './org-units.ts';

const text = { valueType: 'TEXT', type: 'java.lang.String', hidden: false, meta: true } as const;

export const analyticsHeaders = [
  { name: 'dx', column: 'Data', ...text },
  { name: 'ou', column: 'Organisation unit', ...text },
  { name: 'pe', column: 'Period', ...text },
  { name: 'value', column: 'Value', valueType: 'NUMBER', type: 'java.lang.Double', hidden: false, meta: false },
] as const;

export interface AnalyticsAnswer {
  headers: typeof analyticsHeaders;
  metaData: {
    items: Record<string, { name: string }>;
    dimensions: { dx: string[]; ou: string[]; pe: string[]; co: string[] };
  };
  rows: string[][];
  headerWidth: number;
  width: number;
  height: number;
}

/** The dimension items a query asked for (all of the table's when it named none). */
export interface AnswerDimensions {
  dx: string[];
  ou: string[];
  pe: string[];
}

function rowsOf(index: AnalyticsTableIndex, selected: Int32Array): string[][] {
  return Array.from(selected, (i) => {
    const row = index.rows[i]!;
    return [row.stat, row.ou, row.pe, formatValue(row.value!)];
  });
}

/** A period's name: its ISO form (`2024-01-05`, `2024-W05`, `2024-01`, `2024`). */
const periodName = (pe: string) => {
  const period = parseDhis2Period(pe);
  return period ? formatPeriod(period) : pe;
};

export function analyticsJson(
  index: AnalyticsTableIndex,
  selected: Int32Array,
  dimensions: AnswerDimensions,
  orgUnits: OrgUnits,
): AnalyticsAnswer {
  const items: Record<string, { name: string }> = {
    dx: { name: 'Data' },
    ou: { name: 'Organisation unit' },
    pe: { name: 'Period' },
  };
  for (const stat of dimensions.dx) items[stat] = { name: stat };
  for (const ou of dimensions.ou) items[ou] = { name: orgUnits.byId.get(ou)?.name ?? ou };
  for (const pe of dimensions.pe) items[pe] = { name: periodName(pe) };
  const rows = rowsOf(index, selected);
  return {
    headers: analyticsHeaders,
    metaData: { items, dimensions: { ...dimensions, co: [] } },
    rows,
    headerWidth: analyticsHeaders.length,
    width: analyticsHeaders.length,
    height: rows.length,
  };
}

/** DHIS2's analytics CSV: a line of the headers' column names, then one line per row. */
export function analyticsCsv(index: AnalyticsTableIndex, selected: Int32Array): string {
  const lines = [analyticsHeaders.map((h) => field(h.column)).join(',')];
  for (const row of rowsOf(index, selected)) lines.push(row.map(field).join(','));
  return `${lines.join('\r\n')}\r\n`;
}
