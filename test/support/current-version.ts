import type { Cluster } from '../../core/cluster/port.ts';
import { datasetKind } from '../../core/resources/dataset/schema.ts';
import { versionPath } from '../../core/stores/layout.ts';

/**
 * Points a Dataset's status at version `id` (a Zarr store under its usual path), as a finished run would: for
 * tests that write or fake the version's files themselves. `temporal` is what the status claims it covers.
 */
export async function setCurrentVersion(
  cluster: Cluster,
  dataset: string,
  id: string,
  temporal: { start: string | null; end: string | null } = { start: null, end: null },
): Promise<void> {
  const coverage = { spatial: { xmin: 0, ymin: 0, xmax: 1, ymax: 1 }, temporal };
  const version = { id, createdAt: '2025-02-01T00:00:00Z', format: 'zarr', coverage, path: versionPath(dataset, id) };
  await cluster.patchStatus(
    datasetKind,
    dataset,
    { type: 'merge', body: { status: { currentVersion: id, versions: [version] } } },
    'default',
  );
}
