import type { Cluster } from '../../../core/cluster/port.ts';
import { datasetKind, type Dataset, type DatasetVersion } from '../../../core/resources/dataset/schema.ts';
import {
  resolveVersion,
  type VersionMiss,
  type VersionRequest,
} from '../../../core/resources/dataset/served-version.ts';
import { HttpError } from '../../errors.ts';

/** A reader's request as the API answers it: a 404 for a format it does not read names the formats (`Zarr`). */
export interface ApiVersionRequest extends VersionRequest {
  formatName?: string;
}

/** A dataset as a reader's path names it (`datasetRefSchema`): `<id>` for the served version, `<id>@<version>`. */
export interface DatasetRef {
  id: string;
  version?: string;
}

/** Splits a path's dataset reference, already validated by `datasetRefSchema`, at its `@`. */
export function datasetRef(ref: string): DatasetRef {
  const at = ref.indexOf('@');
  return at < 0 ? { id: ref } : { id: ref.slice(0, at), version: ref.slice(at + 1) };
}

/** The 404 that says why a reader finds no version of dataset `id`: the one text of each miss. */
export function versionNotFound(
  id: string,
  miss: VersionMiss,
  { formatName, version }: ApiVersionRequest = {},
): HttpError {
  const detail = {
    dataset: `Dataset ${id} not found`,
    format: `Dataset ${id} is not stored as ${formatName}`,
    version: `Dataset ${id} has no stored version yet`,
    named: `Dataset ${id} has no retained version ${version}`,
  }[miss];
  return new HttpError('NotFound', detail);
}

/** Dataset `id` and the version a reader reads, read from the resource store at each call; else the 404. */
export async function readVersion(
  cluster: Pick<Cluster, 'get'>,
  namespace: string,
  id: string,
  request: ApiVersionRequest = {},
): Promise<{ dataset: Dataset; version: DatasetVersion }> {
  const resolved = resolveVersion(await cluster.get<Dataset>(datasetKind, id, namespace), request);
  if (resolved.miss) throw versionNotFound(id, resolved.miss, request);
  return resolved;
}
