/**
 * A rerun's datasets at the versions its original run read (docs/processing.md#reruns): each pinned Dataset is
 * handed to the attempt as if the pinned version were the one served, so `load_collection` reads it.
 */
import type { KubeObject } from '../../cluster/objects.ts';
import { datasetKind, type Dataset } from '../../resources/dataset/schema.ts';

export type PinnedVersions =
  | { resources: KubeObject[]; missing?: undefined }
  /** Datasets whose pinned version is no longer retained, as `dataset@version`. */
  | { resources?: undefined; missing: string[] };

export function withPinnedVersions(
  resources: readonly KubeObject[],
  datasetVersions: Readonly<Record<string, string>>,
): PinnedVersions {
  const missing: string[] = [];
  const pinned = resources.map((o) => {
    const version = datasetVersions[o.metadata.name];
    if (o.apiVersion !== datasetKind.apiVersion || o.kind !== datasetKind.kind || version === undefined) return o;
    const dataset = o as Dataset;
    if (!dataset.status?.versions?.some((v) => v.id === version)) missing.push(`${o.metadata.name}@${version}`);
    return { ...dataset, status: { ...dataset.status, currentVersion: version } } as KubeObject;
  });
  return missing.length > 0 ? { missing } : { resources: pinned };
}
