/**
 * Published AnalyticsTable versions in memory, indexed by org unit and by period, so a query reads no file: each
 * version is loaded once (keyed by its id; a newer served version replaces it), with the names of its org units
 * from the feature collection file it was computed with.
 */
import { readFile } from 'node:fs/promises';
import { readGeoParquetDocument } from '../../../core/features/geoparquet-read.ts';
import { readAnalyticsTable, type AnalyticsRow } from '../../../core/analytics/table-file.ts';
import type { AnalyticsTable, AnalyticsTableVersion } from '../../../core/resources/analytics-table/schema.ts';
import { storeFile } from '../../../core/stores/layout.ts';

export interface TableIndex {
  version: AnalyticsTableVersion;
  rows: AnalyticsRow[];
  byOu: Map<string, number[]>;
  byPe: Map<string, number[]>;
  /** Org unit names by id, and the period ids of each period type in time order. */
  names: Map<string, string>;
}

function indexBy(rows: readonly AnalyticsRow[], key: (row: AnalyticsRow) => string): Map<string, number[]> {
  const index = new Map<string, number[]>();
  rows.forEach((row, i) => {
    const k = key(row);
    const list = index.get(k);
    if (list) list.push(i);
    else index.set(k, [i]);
  });
  return index;
}

async function orgUnitNames(root: string, path: string, idProperty: string): Promise<Map<string, string>> {
  const { document } = await readGeoParquetDocument(await readFile(storeFile(root, path)), path);
  const names = new Map<string, string>();
  for (const feature of (document as { features: { properties?: Record<string, unknown> }[] }).features) {
    const id = feature.properties?.[idProperty];
    const name = feature.properties?.name;
    if (id !== undefined) names.set(String(id), typeof name === 'string' ? name : String(id));
  }
  return names;
}

export class TableIndexes {
  readonly #loaded = new Map<string, Promise<TableIndex>>();

  readonly #storageRoot: string;

  constructor(storageRoot: string) {
    this.#storageRoot = storageRoot;
  }

  /** The index of the table's served version; `idProperty` names the collection's id property. */
  of(table: AnalyticsTable, idProperty: string): Promise<TableIndex> {
    const version = table.status!.table!;
    const key = `${table.metadata.namespace ?? ''}/${table.metadata.name}`;
    const cached = this.#loaded.get(key);
    if (cached)
      return cached.then((index) => (index.version.id === version.id ? index : this.#load(key, version, idProperty)));
    return this.#load(key, version, idProperty);
  }

  #load(key: string, version: AnalyticsTableVersion, idProperty: string): Promise<TableIndex> {
    const loading = (async () => {
      const rows = await readAnalyticsTable(storeFile(this.#storageRoot, version.path));
      return {
        version,
        rows,
        byOu: indexBy(rows, (r) => r.ou),
        byPe: indexBy(rows, (r) => r.pe),
        names: await orgUnitNames(this.#storageRoot, version.featureCollectionPath, idProperty),
      };
    })();
    this.#loaded.set(key, loading);
    // A failed load is not kept: the next request tries again.
    loading.catch(() => this.#loaded.get(key) === loading && this.#loaded.delete(key));
    return loading;
  }
}
