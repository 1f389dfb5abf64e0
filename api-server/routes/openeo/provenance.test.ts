import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROVENANCE_FILE, type ProcessingManifest } from '../../../core/provenance/manifest.ts';
import { datasetKind } from '../../../core/resources/dataset/schema.ts';
import { processingJobKind, type ProcessingJob } from '../../../core/resources/processing-job/schema.ts';
import { API_VERSION } from '../../../core/resources/registry.ts';
import { jobRunPath, versionPath } from '../../../core/stores/layout.ts';
import { provenanceExtensionsValidator } from '../../../test/support/stac-extensions.ts';
import { build, type Built } from '../../test/build.ts';

const graph = {
  load: { process_id: 'load_collection', arguments: { id: 'chirps', spatial_extent: null, temporal_extent: null } },
  save: { process_id: 'save_result', arguments: { data: { from_node: 'load' }, format: 'GTiff' }, result: true },
};
const CHECKSUM = `1220${'ab'.repeat(32)}`;

const version = (id: string) => ({
  id,
  createdAt: '2026-11-01T00:00:00Z',
  format: 'zarr',
  coverage: { spatial: { xmin: 0, ymin: 0, xmax: 1, ymax: 1 }, temporal: { start: null, end: null } },
  path: versionPath('chirps', id),
});

/** The dataset `chirps` with versions `v1` and `v2`, `v2` served. */
async function chirps(built: Built, versions = ['v1', 'v2']) {
  await built.cluster.apply(datasetKind, {
    apiVersion: API_VERSION,
    kind: 'Dataset',
    metadata: { name: 'chirps', namespace: 'default' },
    spec: { source: 'chirps', datasetName: 'CHIRPS', itemType: 'coverage', format: 'zarr' },
  });
  await built.cluster.patchStatus(
    datasetKind,
    'chirps',
    { type: 'merge', body: { status: { currentVersion: versions.at(-1), versions: versions.map(version) } } },
    'default',
  );
}

/** A job that finished with `result.tif`, and with the manifest of a run that read `chirps` at `v1` unless not. */
async function finishedJob(built: Built, withManifest = true): Promise<string> {
  const created = await built.app.inject({
    method: 'POST',
    url: '/jobs',
    payload: { title: 'Max', process: { process_graph: graph } },
  });
  const id = created.headers['openeo-identifier'] as string;
  const path = jobRunPath('default', id, `${id}-a1`);
  const dir = join(built.storageRoot, path);
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'result.tif'), 'tiff bytes');
  const manifest: ProcessingManifest = {
    type: 'processing',
    job: id,
    attempt: `${id}-a1`,
    engine: { name: 'stratus', version: '0.1.0' },
    processGraph: { sha256: 'cd'.repeat(32), graph },
    parameters: {},
    inputs: {
      datasets: [
        {
          id: 'chirps',
          version: 'v1',
          format: 'zarr',
          createdAt: '2026-11-01T00:00:00Z',
          storeDigest: 'ef'.repeat(32),
        },
      ],
      featureCollections: [],
    },
    outputs: [
      {
        name: 'result.tif',
        mediaType: 'image/tiff; application=geotiff',
        size: 10,
        checksum: CHECKSUM,
        format: 'GTiff',
        options: {},
      },
    ],
    startedAt: '2026-11-02T00:00:00.000Z',
    finishedAt: '2026-11-02T00:00:05.000Z',
  };
  if (withManifest) await writeFile(join(dir, PROVENANCE_FILE), JSON.stringify(manifest));
  const job = (await built.cluster.get<ProcessingJob>(processingJobKind, id, 'default'))!;
  await built.cluster.updateStatus(processingJobKind, {
    ...job,
    status: {
      phase: 'finished',
      finishedAt: '2026-11-02T00:00:05Z',
      results: { path, files: [{ name: 'result.tif', mediaType: 'image/tiff; application=geotiff', size: 10 }] },
    },
  });
  return id;
}

const code = (response: { json(): unknown }) => (response.json() as { code?: string }).code;

describe('openEO batch job provenance and reruns', () => {
  it('serves the provenance Item of a finished job, linked from its results and valid against the published schemas', async () => {
    const built = await build();
    const id = await finishedJob(built);
    const results = (await built.app.inject({ url: `/jobs/${id}/results` })).json() as {
      links: { rel: string; href: string }[];
    };
    expect(results.links).toContainEqual(
      expect.objectContaining({
        rel: 'provenance',
        href: expect.stringMatching(new RegExp(`/jobs/${id}/results/provenance$`)),
      }),
    );
    const response = await built.app.inject({ url: `/jobs/${id}/results/provenance` });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/geo\+json/);
    const item = response.json() as Record<string, unknown> & {
      properties: Record<string, unknown>;
      assets: Record<string, Record<string, unknown>>;
    };
    expect((await provenanceExtensionsValidator())(item)).toEqual([]);
    expect(item.properties).toMatchObject({
      'processing:software': { stratus: '0.1.0' },
      'processing:expression': { format: 'openeo', expression: graph },
      'processing:datetime': '2026-11-02T00:00:05.000Z',
      'processing:lineage': expect.stringContaining('dataset chirps at version v1'),
      'stratus:run': { job: id, started: '2026-11-02T00:00:00.000Z', finished: '2026-11-02T00:00:05.000Z' },
    });
    expect(item.assets['result.tif']).toMatchObject({ 'file:checksum': CHECKSUM, 'file:size': 10 });
  });

  it('answers 404 FileNotFound for the provenance and the rerun of a job whose run wrote no manifest', async () => {
    const built = await build();
    const id = await finishedJob(built, false);
    const results = (await built.app.inject({ url: `/jobs/${id}/results` })).json() as { links: { rel: string }[] };
    expect(results.links.map((l) => l.rel)).not.toContain('provenance');
    const provenance = await built.app.inject({ url: `/jobs/${id}/results/provenance` });
    expect([provenance.statusCode, code(provenance)]).toEqual([404, 'FileNotFound']);
    const rerun = await built.app.inject({ method: 'POST', url: `/jobs/${id}/rerun` });
    expect([rerun.statusCode, code(rerun)]).toEqual([404, 'FileNotFound']);
  });

  it('reruns a finished job as a new queued job pinned to the versions it read, and refuses what cannot be rerun', async () => {
    const built = await build();
    await chirps(built);
    const id = await finishedJob(built);
    const rerun = await built.app.inject({ method: 'POST', url: `/jobs/${id}/rerun` });
    expect(rerun.statusCode).toBe(201);
    const rerunId = rerun.headers['openeo-identifier'] as string;
    expect(rerunId).not.toBe(id);
    expect(rerun.headers.location).toMatch(new RegExp(`/jobs/${rerunId}$`));
    expect(rerun.json()).toMatchObject({
      id: rerunId,
      title: 'Max',
      status: 'queued',
      process: { process_graph: graph },
    });
    const stored = (await built.cluster.get<ProcessingJob>(processingJobKind, rerunId, 'default'))!;
    expect(stored.spec.rerun).toEqual({ of: id, datasetVersions: { chirps: 'v1' } });
    expect(stored.spec.queuedAt).toBeDefined();

    // The rerun itself has not finished.
    const early = await built.app.inject({ method: 'POST', url: `/jobs/${rerunId}/rerun` });
    expect([early.statusCode, code(early)]).toEqual([400, 'JobNotFinished']);

    // Once the version it read is gone, the job cannot be rerun.
    await chirps(built, ['v2']);
    const gone = await built.app.inject({ method: 'POST', url: `/jobs/${id}/rerun` });
    expect(gone.statusCode).toBe(409);
    expect((gone.json() as { detail: string }).detail).toContain('chirps@v1');
  });
});
