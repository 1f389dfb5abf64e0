import type { Dataset } from '../../../core/resources/dataset/schema.ts';
import { resolveVersion, ZARR_FORMATS } from '../../../core/resources/dataset/served-version.ts';
import { directoryStore } from '../../../core/stores/directory-store.ts';
import { storeFile } from '../../../core/stores/layout.ts';
import { levelAssets } from '../../../core/stores/pyramid.ts';
import type { ReadableStore } from '../../../core/stores/store.ts';
import { readZarrArray, readZarrGroup } from '../../../core/stores/zarr/metadata.ts';
import type { IcechunkSnapshots } from '../icechunk/icechunk-snapshots.ts';

/** What the catalogue says about a raster store, read from the store's own metadata. */
export interface StoreGrid {
  zarrFormat: 2 | 3;
  /** Shape of the data variable: time, lat, lon. */
  shape: number[];
  chunks: number[];
  dataType: string;
  /** Cell size in degrees, from the `spatial_ref` GeoTransform. */
  resolution: { x: number; y: number } | undefined;
  /** GDAL's six GeoTransform coefficients of the grid (origin, cell size, rotation), from `spatial_ref`. */
  geoTransform: number[] | undefined;
  /** Whether the store holds consolidated metadata (`.zmetadata` in v2, `consolidated_metadata` in v3). */
  consolidated: boolean;
  /** Multiscale levels coarser than the data variable that the root declares (`core/stores/pyramid.ts`); 0 for none. */
  levels: number;
}

function geoTransformOf(attribute: unknown): number[] | undefined {
  if (typeof attribute !== 'string') return undefined;
  const coefficients = attribute.trim().split(/\s+/).map(Number);
  return coefficients.length === 6 && coefficients.every(Number.isFinite) ? coefficients : undefined;
}

/**
 * The grid of a dataset's current version, or undefined while nothing is stored (or the format is not Zarr).
 * Icechunk versions are read through their snapshot (cached), so the catalogue describes exactly what `/zarr/`
 * serves; the store's own metadata says its Zarr format.
 */
export async function readStoreGrid(
  dataset: Dataset,
  storageRoot: string,
  snapshots: IcechunkSnapshots,
): Promise<StoreGrid | undefined> {
  const { version } = resolveVersion(dataset, { formats: ZARR_FORMATS });
  if (!version) return undefined;
  const base = storeFile(storageRoot, version.path);
  const snapshot = version.snapshot;
  const store: ReadableStore = snapshot
    ? { get: async (key) => (await snapshots.get(base, snapshot, key))?.bytes }
    : directoryStore(base);
  const group = await readZarrGroup(store);
  const variable = dataset.spec.variable ?? 'value';
  const array = group && (await readZarrArray(store, group, variable));
  if (!group || !array) return undefined;
  const geoTransform = geoTransformOf((await readZarrArray(store, group, 'spatial_ref'))?.attributes.GeoTransform);
  const [, dx, , , , dy] = geoTransform ?? [];
  return {
    zarrFormat: group.zarrFormat,
    shape: array.shape,
    chunks: array.chunks,
    dataType: array.dataType,
    consolidated: group.consolidated,
    levels: levelAssets(group.attributes, variable).length - 1,
    geoTransform,
    resolution: dx && dy ? { x: Math.abs(dx), y: Math.abs(dy) } : undefined,
  };
}
