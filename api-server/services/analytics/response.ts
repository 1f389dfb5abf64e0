/**
 * The answers of `GET /analytics/{table}`: DHIS2 analytics' JSON (`headers`, `metaData`, `rows`, `headerWidth`,
 * `width`, `height`, as `/api/analytics` answers them, with the statistic as the data dimension `dx`) and its CSV.
 * The JSON is assembled from bytes made once per loaded table (each row's, each org unit's and period's item), so
 * that an answer costs a copy of the selected rows, not their formatting and serialization.
 */
import { formatPeriod } from '../../../core/periods/index.ts';
import { parseDhis2Period } from '../../../core/periods/dhis2.ts';
import { formatValue } from '../../../core/processing/results/dhis2-json.ts';
import { field } from '../../../core/processing/results/vector.ts';
import type { AnalyticsTableIndex } from './table-index.ts';
import type { OrgUnits } from './org-units.ts';

/** An answer's row: the items of the dimensions that are not filters (the others absent) and the value. */
export interface AggregatedRow {
  dx?: string;
  ou?: string;
  pe?: string;
  value: number;
}

const text = { valueType: 'TEXT', type: 'java.lang.String', hidden: false, meta: true } as const;

export const analyticsHeaders = [
  { name: 'dx', column: 'Data', ...text },
  { name: 'ou', column: 'Organisation unit', ...text },
  { name: 'pe', column: 'Period', ...text },
  { name: 'value', column: 'Value', valueType: 'NUMBER', type: 'java.lang.Double', hidden: false, meta: false },
] as const;

/** The headers of an answer whose dimensions `filtered` are filters, so not columns. */
const headersWithout = (filtered: ReadonlySet<string>) => analyticsHeaders.filter((h) => !filtered.has(h.name));

const aggregatedTexts = (headers: readonly (typeof analyticsHeaders)[number][], row: AggregatedRow) =>
  headers.map((h) => (h.name === 'value' ? formatValue(row.value) : (row[h.name] as string)));

/** The dimension items a query asked for (all of the table's when it named none). */
export interface AnswerDimensions {
  dx: string[];
  ou: string[];
  pe: string[];
}

/** A period's name: its ISO form (`2024-01-05`, `2024-W05`, `2024-01`, `2024`). */
const periodName = (pe: string) => {
  const period = parseDhis2Period(pe);
  return period ? formatPeriod(period) : pe;
};

const rowTexts = (index: AnalyticsTableIndex, i: number) => {
  const row = index.rows[i]!;
  return [row.stat, row.ou, row.pe, row.value === null ? '' : formatValue(row.value)];
};

const item = (id: string, name: string) => `${JSON.stringify(id)}:${JSON.stringify({ name })}`;

/** Pieces of JSON text, encoded once into one buffer: `piece(i)` is the bytes of the i-th. */
class EncodedPieces {
  readonly #bytes: Buffer;
  readonly #offsets: Int32Array;

  constructor(pieces: readonly string[]) {
    this.#offsets = new Int32Array(pieces.length + 1);
    pieces.forEach((piece, i) => (this.#offsets[i + 1] = this.#offsets[i]! + Buffer.byteLength(piece)));
    this.#bytes = Buffer.from(pieces.join(''));
  }

  piece(i: number): Buffer {
    return this.#bytes.subarray(this.#offsets[i], this.#offsets[i + 1]);
  }
}

const FIXED_ITEMS = ['dx', 'Data', 'ou', 'Organisation unit', 'pe', 'Period'] as const;

/** JSON text followed by the comma that separates it from the next member or element. */
const listed = (json: string) => Buffer.from(`${json},`);

/** The pieces one after another, without the last one's separating comma. */
function pushList(parts: Buffer[], pieces: readonly Buffer[]) {
  pieces.forEach((piece, i) => parts.push(i === pieces.length - 1 ? piece.subarray(0, piece.length - 1) : piece));
}

export class AnalyticsJson {
  readonly #index: AnalyticsTableIndex;
  /** Each row's JSON array, followed by a comma. */
  readonly #rows: EncodedPieces;
  readonly #orgUnitItems = new Map<string, Buffer>();
  /** The items of every org unit, in the order of `OrgUnits.byId`: the answer of a query naming none. */
  readonly #allOrgUnitItems: Buffer;
  readonly #periodItems = new Map<string, Buffer>();

  constructor(index: AnalyticsTableIndex, orgUnits: OrgUnits) {
    this.#index = index;
    this.#rows = new EncodedPieces(index.rows.map((_, i) => `${JSON.stringify(rowTexts(index, i))},`));
    for (const unit of orgUnits.byId.values()) this.#orgUnitItems.set(unit.id, listed(item(unit.id, unit.name)));
    this.#allOrgUnitItems = Buffer.concat([...this.#orgUnitItems.values()]);
    for (const pe of index.periods) this.#periodItems.set(pe, listed(item(pe, periodName(pe))));
  }

  /**
   * The answer's bytes: the rows `selected` (indices of the table's rows) and the items of `dimensions`;
   * `allOrgUnits`: the query named no org unit, so `dimensions.ou` are all of them.
   */
  answer(selected: Int32Array, dimensions: AnswerDimensions, allOrgUnits: boolean): Buffer {
    return this.#envelope(
      analyticsHeaders,
      dimensions,
      allOrgUnits,
      Array.from(selected, (row) => this.#rows.piece(row)),
    );
  }

  /** The answer of a query with filters: `rows` aggregated over the items of the dimensions `filtered`. */
  aggregated(
    rows: readonly AggregatedRow[],
    dimensions: AnswerDimensions,
    filtered: ReadonlySet<string>,
    allOrgUnits: boolean,
  ): Buffer {
    const headers = headersWithout(filtered);
    const pieces = rows.map((row) => listed(JSON.stringify(aggregatedTexts(headers, row))));
    return this.#envelope(headers, dimensions, allOrgUnits, pieces);
  }

  #envelope(
    headers: readonly (typeof analyticsHeaders)[number][],
    dimensions: AnswerDimensions,
    allOrgUnits: boolean,
    rows: readonly Buffer[],
  ): Buffer {
    const items: Buffer[] = [];
    for (let i = 0; i < FIXED_ITEMS.length; i += 2) items.push(listed(item(FIXED_ITEMS[i]!, FIXED_ITEMS[i + 1]!)));
    for (const stat of dimensions.dx) items.push(listed(item(stat, stat)));
    if (allOrgUnits) items.push(this.#allOrgUnitItems);
    else for (const ou of dimensions.ou) items.push(this.#orgUnitItems.get(ou) ?? listed(item(ou, ou)));
    for (const pe of dimensions.pe) items.push(this.#periodItems.get(pe) ?? listed(item(pe, periodName(pe))));
    const width = headers.length;
    const parts: Buffer[] = [Buffer.from(`{"headers":${JSON.stringify(headers)},"metaData":{"items":{`)];
    pushList(parts, items);
    parts.push(Buffer.from(`},"dimensions":${JSON.stringify({ ...dimensions, co: [] })}},"rows":[`));
    pushList(parts, rows);
    parts.push(Buffer.from(`],"headerWidth":${width},"width":${width},"height":${rows.length}}`));
    return Buffer.concat(parts);
  }

  /** DHIS2's analytics CSV: a line of the headers' column names, then one line per selected row. */
  csv(selected: Int32Array): string {
    const lines = [analyticsHeaders.map((h) => field(h.column)).join(',')];
    for (const i of selected) lines.push(rowTexts(this.#index, i).map(field).join(','));
    return `${lines.join('\r\n')}\r\n`;
  }
}

/** The CSV of a query with filters: the columns of the dimensions that are not filters, then the value. */
export function aggregatedCsv(rows: readonly AggregatedRow[], filtered: ReadonlySet<string>): string {
  const headers = headersWithout(filtered);
  const lines = [headers.map((h) => field(h.column)).join(',')];
  for (const row of rows) lines.push(aggregatedTexts(headers, row).map(field).join(','));
  return `${lines.join('\r\n')}\r\n`;
}
