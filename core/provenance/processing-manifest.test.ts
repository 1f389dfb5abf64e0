import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { API_VERSION } from '../resources/kind.ts';
import type { Dataset } from '../resources/dataset/schema.ts';
import { storeFile, versionPath } from '../stores/layout.ts';
import { processingManifest, type ProcessingRun } from './processing-manifest.ts';

const graph = {
  load: { process_id: 'load_collection', arguments: { id: 'chirps', spatial_extent: null, temporal_extent: null } },
  save: { process_id: 'save_result', arguments: { data: { from_node: 'load' }, format: 'JSON' }, result: true },
};

const version = (id: string) => ({
  id,
  createdAt: `2026-11-0${id.slice(1)}T00:00:00Z`,
  format: 'zarr' as const,
  coverage: { spatial: { xmin: 0, ymin: 0, xmax: 1, ymax: 1 }, temporal: { start: null, end: null } },
  path: versionPath('chirps', id),
});

/** `chirps` as the cluster holds it when the manifest is written: `v2`, published while the run read `v1`, served. */
const chirps: Dataset = {
  apiVersion: API_VERSION,
  kind: 'Dataset',
  metadata: { name: 'chirps', namespace: 'default' },
  spec: { source: 'chirps', datasetName: 'CHIRPS', itemType: 'coverage', format: 'zarr' },
  status: { currentVersion: 'v2', versions: [version('v1'), version('v2')] },
} as Dataset;

let storageRoot: string;

beforeEach(async () => {
  storageRoot = await mkdtemp(join(tmpdir(), 'processing-manifest-'));
  for (const id of ['v1', 'v2']) {
    const dir = storeFile(storageRoot, versionPath('chirps', id));
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'zarr.json'), JSON.stringify({ zarr_format: 3, node_type: 'group', attributes: { id } }));
  }
});
afterEach(() => rm(storageRoot, { recursive: true, force: true }));

const run = (inputs: ProcessingRun['inputs']): ProcessingRun => ({
  job: 'j',
  attempt: 'j-a1',
  process: { process_graph: graph },
  resources: [chirps],
  inputs,
  storageRoot,
  dir: storageRoot,
  saved: [],
  startedAt: '2026-11-03T00:00:00Z',
  finishedAt: '2026-11-03T00:01:00Z',
});

describe('processingManifest inputs', () => {
  it('names the version the run read, not the one published since', async () => {
    const read = await processingManifest(run([{ dataset: 'chirps', version: 'v1' }]));
    const served = await processingManifest(run([{ dataset: 'chirps', version: 'v2' }]));
    expect(read.inputs.datasets).toEqual([
      expect.objectContaining({ id: 'chirps', version: 'v1', createdAt: '2026-11-01T00:00:00Z' }),
    ]);
    expect(read.inputs.datasets[0]!.storeDigest).not.toBe(served.inputs.datasets[0]!.storeDigest);
  });

  it('lists only the datasets the run read', async () => {
    expect((await processingManifest(run([]))).inputs.datasets).toEqual([]);
  });
});
