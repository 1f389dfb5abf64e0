import type { StoreFormat } from './cube-sink.ts';

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
