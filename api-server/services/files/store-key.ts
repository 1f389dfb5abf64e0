import { isSafeKey } from '../../../core/stores/layout.ts';
import { validationFailed } from '../../errors.ts';

/**
 * The refusal of a key (the `*` path parameter of `/zarr` and `/icechunk`) that could leave its store: a 422
 * validation failure of the path, as spec 1 answers every path that fails validation (docs/errors.md).
 */
export function keyOutsideStore(key: string) {
  return validationFailed(
    ['path', '*'],
    `${JSON.stringify(key)} is not a key inside the store: a segment is empty, "." or "..", or holds a backslash`,
  );
}

/**
 * The key a store route reads, without the trailing slash of a listing, checked before anything is looked up: a key
 * that could leave the store is refused whatever the dataset.
 */
export function checkedStoreKey(key: string): string {
  const path = key.replace(/\/$/, '');
  if (path !== '' && !isSafeKey(path)) throw keyOutsideStore(key);
  return path;
}
