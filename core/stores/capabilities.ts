import type { StoreFormat } from './store.ts';

/** What each stored format can do, decided from the Dataset's format alone (no backend is loaded for it). */

/** Why a format cannot be written here, or undefined when it can. */
export function unsupportedFormat({ format, zarrVersion }: StoreFormat): string | undefined {
  if (format === 'zarr' && (zarrVersion === 2 || zarrVersion === 3)) return undefined;
  if (format === 'netcdf' || format === 'icechunk') return undefined;
  const name = format === 'zarr' ? `Zarr v${zarrVersion}` : format;
  return `raster datasets are stored as Zarr v2 or v3, Icechunk or NetCDF-4; ${name} is not a raster format`;
}

/** Why a version in this format cannot be written in parts, or undefined when it can. */
export function unsplittableFormat({ format }: StoreFormat): string | undefined {
  return format === 'zarr'
    ? undefined
    : `a ${format} version is written by one worker (only Zarr versions are written in parts)`;
}

/**
 * Whether a sync can append new periods to a copy of the current version, reusing its unchanged files, instead of
 * rewriting the whole store. Zarr stores can (chunks are files; only the last time block and the metadata
 * change), and so can Icechunk (a branch of the current snapshot keeps its chunks); a NetCDF-4 file is rewritten
 * whole.
 */
export function canAppend(store: StoreFormat): boolean {
  return (
    (store.format === 'zarr' && (store.zarrVersion === 2 || store.zarrVersion === 3)) || store.format === 'icechunk'
  );
}

/** The Zarr format of a `zarr` dataset's versions: 2 unless it asks for 3. */
export const zarrVersionOf = (format: StoreFormat): 2 | 3 => (format.zarrVersion === 3 ? 3 : 2);
