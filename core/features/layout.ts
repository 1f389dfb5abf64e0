import { join } from 'node:path';
import { isSafeName } from '../stores/layout.ts';

/**
 * Where a feature collection's files live under the storage root: `features/<id>/<version>.parquet`, one
 * complete GeoParquet file per version. The collection's status names the current one; a file appears only by
 * an atomic rename, so every `.parquet` name is a complete file.
 */

function checked(name: string): string {
  if (!isSafeName(name)) throw new Error(`not a safe store name: ${JSON.stringify(name)}`);
  return name;
}

export const featureCollectionDir = (root: string, id: string) => join(root, 'features', checked(id));

/** The store path of a version's file relative to the storage root, as recorded in the collection's status. */
export const featureFilePath = (id: string, version: string) =>
  ['features', checked(id), `${checked(version)}.parquet`].join('/');
