/**
 * The served version of each AnalyticsTable, read once into memory (`table-index.ts`) with its org units, keyed by
 * `status.table.id`: a request never reads a file, and a newer served version replaces the older one in memory.
 */
import { readDownloadDigest, type DownloadDigest } from '../../../core/analytics/download-digest.ts';
import { readAnalyticsTable } from '../../../core/analytics/table-file.ts';
import type { AnalyticsTableVersion } from '../../../core/resources/analytics-table/schema.ts';
import { storeFile } from '../../../core/stores/layout.ts';
import { AnalyticsTableIndex } from './table-index.ts';
import { readOrgUnits, type OrgUnits } from './org-units.ts';
import { AnalyticsJson } from './response.ts';

export interface LoadedTable {
  index: AnalyticsTableIndex;
  orgUnits: OrgUnits;
  /** Its answers, from bytes made once. */
  answers: AnalyticsJson;
  /** The digest of its download as the build wrote it; absent for a version published without one. */
  download?: DownloadDigest;
}

export class LoadedTables {
  readonly #storageRoot: string;
  readonly #loaded = new Map<string, { id: string; table: Promise<LoadedTable> }>();

  constructor(storageRoot: string) {
    this.#storageRoot = storageRoot;
  }

  /** The loaded `version` of table `name`; `idProperty`: the feature property the org unit ids are, asked on a load. */
  of(name: string, version: AnalyticsTableVersion, idProperty: () => Promise<string>): Promise<LoadedTable> {
    const loaded = this.#loaded.get(name);
    if (loaded?.id === version.id) return loaded.table;
    const table = this.#load(version, idProperty);
    this.#loaded.set(name, { id: version.id, table });
    // A failed read is not kept: the next request tries again.
    table.catch(() => {
      if (this.#loaded.get(name)?.table === table) this.#loaded.delete(name);
    });
    return table;
  }

  /** Frees a table that no longer exists or serves no version. */
  forget(name: string): void {
    this.#loaded.delete(name);
  }

  async #load(version: AnalyticsTableVersion, idProperty: () => Promise<string>): Promise<LoadedTable> {
    const path = storeFile(this.#storageRoot, version.path);
    const [rows, orgUnits, download] = await Promise.all([
      readAnalyticsTable(path),
      idProperty().then((property) =>
        readOrgUnits(storeFile(this.#storageRoot, version.featureCollectionPath), property),
      ),
      readDownloadDigest(path),
    ]);
    const index = new AnalyticsTableIndex(rows);
    return { index, orgUnits, answers: new AnalyticsJson(index, orgUnits), ...(download && { download }) };
  }
}
