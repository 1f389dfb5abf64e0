import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { describe, expect, it } from 'vitest';
import { datasetKind, type Dataset, type DatasetVersion } from '../../../core/resources/dataset/schema.ts';
import { deliveryKind } from '../../../core/resources/delivery/schema.ts';
import { processingJobKind } from '../../../core/resources/processing-job/schema.ts';
import { API_VERSION } from '../../../core/resources/registry.ts';
import { storeFile, thumbnailPath, versionPath } from '../../../core/stores/layout.ts';
import { build, type Built } from '../../test/build.ts';

const coverage = {
  spatial: { xmin: 0, ymin: 0, xmax: 1, ymax: 1 },
  temporal: { start: '2024-01-01', end: '2024-01-02' },
};

const version = (id: string, createdAt: string, more: Partial<DatasetVersion> = {}): DatasetVersion => ({
  id,
  createdAt,
  format: 'zarr',
  coverage,
  path: versionPath('rain', id),
  ...more,
});

const V1 = version('v1', '2024-01-03T00:00:00Z');
const V2 = version('v2', '2024-01-04T00:00:00Z');

async function writeStoreFile(storageRoot: string, path: string, bytes: string) {
  const file = storeFile(storageRoot, path);
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, bytes);
}

/** A dataset `rain` whose versions' files (of v1 and v2) hold their own bytes, serving `current`. */
async function servedDataset(
  built: Built,
  current: string,
  versions = [V1, V2],
  format: Dataset['spec']['format'] = 'zarr',
) {
  for (const v of [V1, V2]) {
    await writeStoreFile(built.storageRoot, `${v.path}/.zmetadata`, `{"version":"${v.id}"}`);
    await writeStoreFile(built.storageRoot, `${v.path}/value/0.0.0`, `chunk of ${v.id}`);
    await writeStoreFile(built.storageRoot, `${v.path}/data.nc`, `netcdf of ${v.id}`);
    await writeStoreFile(built.storageRoot, thumbnailPath('rain', v.id), `png of ${v.id}`);
  }
  await built.cluster.create(datasetKind, {
    apiVersion: API_VERSION,
    kind: 'Dataset',
    metadata: { name: 'rain', namespace: 'default' },
    spec: {
      source: 's',
      datasetName: 'Rain',
      itemType: 'coverage',
      license: 'other',
      format,
      zarrVersion: 2,
      publish: true,
      versionHistoryLimit: 5,
    },
  });
  await publish(built, current, versions);
}

/** What the operator's switch does: one status write naming the version readers are served. */
async function publish(built: Built, current: string, versions = [V1, V2]) {
  await built.cluster.patchStatus(
    datasetKind,
    'rain',
    { type: 'merge', body: { status: { currentVersion: current, versions } } },
    'default',
  );
}

describe('addressing a retained version as <id>@<version>', () => {
  it('serves the old version of /zarr with the bytes it was served with once a new one is published', async () => {
    const built = await build();
    await servedDataset(built, 'v1', [V1]);
    const before = await built.app.inject({ url: '/zarr/rain/value/0.0.0' });
    expect(before.body).toBe('chunk of v1');

    await publish(built, 'v2');
    expect((await built.app.inject({ url: '/zarr/rain/value/0.0.0' })).body).toBe('chunk of v2');
    const old = await built.app.inject({ url: '/zarr/rain@v1/value/0.0.0' });
    expect(old.statusCode).toBe(200);
    expect(old.rawPayload.equals(before.rawPayload)).toBe(true);
    expect(old.headers.etag).toBe(before.headers.etag);
    expect((await built.app.inject({ url: '/zarr/rain@v1/.zmetadata' })).json()).toEqual({ version: 'v1' });
    expect((await built.app.inject({ url: '/zarr/rain@v1/' })).json()).toMatchObject({
      dataset_id: 'rain',
      version: 'v1',
    });
  });

  it('answers 404 naming a version that is not retained, on every reader', async () => {
    const built = await build();
    await servedDataset(built, 'v2');
    for (const url of [
      '/zarr/rain@v9/.zmetadata',
      '/datasets/rain@v9/thumbnail.png',
      '/datasets/rain@v9/tiles/0/0/0.png',
      '/datasets/rain@v9/tiles.json',
    ]) {
      const answer = await built.app.inject({ url });
      expect([url, answer.statusCode, answer.json()]).toEqual([
        url,
        404,
        { detail: 'Dataset rain has no retained version v9' },
      ]);
    }
    // A reference that is no dataset id with a version name is refused as input.
    expect((await built.app.inject({ url: '/zarr/rain@/x' })).statusCode).toBe(422);
    expect((await built.app.inject({ url: '/zarr/rain@v1@v2/x' })).statusCode).toBe(422);
  });

  it('serves the thumbnail rendered with a retained version', async () => {
    const built = await build();
    await servedDataset(built, 'v2');
    expect((await built.app.inject({ url: '/datasets/rain@v1/thumbnail.png' })).body).toBe('png of v1');
    expect((await built.app.inject({ url: '/datasets/rain@v2/thumbnail.png' })).body).toBe('png of v2');
  });

  it('downloads a retained NetCDF version', async () => {
    const built = await build();
    const nc = (v: DatasetVersion) => ({ ...v, format: 'netcdf' as const });
    await servedDataset(built, 'v2', [nc(V1), nc(V2)], 'netcdf');
    expect((await built.app.inject({ url: '/datasets/rain/download' })).body).toBe('netcdf of v2');
    expect((await built.app.inject({ url: '/datasets/rain@v1/download' })).body).toBe('netcdf of v1');
    expect((await built.app.inject({ url: '/datasets/rain@v9/download' })).json()).toEqual({
      detail: 'Dataset rain has no retained version v9',
    });
  });

  it('takes an Icechunk snapshot id as a version name', async () => {
    const built = await build();
    const ice = (v: DatasetVersion, snapshot: string) => ({
      ...v,
      format: 'icechunk' as const,
      path: 'datasets/rain/icechunk',
      snapshot,
    });
    await writeStoreFile(built.storageRoot, 'datasets/rain/icechunk/repo', 'refs');
    await servedDataset(built, 'v2', [ice(V1, 'SNAPSHOTONE000000000'), ice(V2, 'SNAPSHOTTWO000000000')], 'icechunk');
    const listing = await built.app.inject({ url: '/icechunk/rain@SNAPSHOTONE000000000/' });
    expect(listing.statusCode).toBe(200);
    expect(listing.json()).toMatchObject({ version: 'SNAPSHOTONE000000000', entries: [{ name: 'repo' }] });
    expect((await built.app.inject({ url: '/icechunk/rain@v1/' })).json()).toMatchObject({
      version: 'SNAPSHOTONE000000000',
    });
    expect((await built.app.inject({ url: '/icechunk/rain@SNAPSHOTNONE/' })).json()).toEqual({
      detail: 'Dataset rain has no retained version SNAPSHOTNONE',
    });
  });

  it('lists the retained versions on /datasets/{id} with the links that read each by name', async () => {
    const built = await build();
    await servedDataset(built, 'v2');
    const answer = await built.app.inject({ url: '/datasets/rain' });
    expect(answer.statusCode, answer.body).toBe(200);
    const body = answer.json();
    expect(body.versions.map((v: { id: string; current: boolean }) => [v.id, v.current])).toEqual([
      ['v2', true],
      ['v1', false],
    ]);
    expect(body.versions[1].links).toEqual([
      { href: '/zarr/rain@v1/', rel: 'zarr', title: 'Zarr store' },
      { href: '/datasets/rain@v1/thumbnail.png', rel: 'preview', title: 'Thumbnail' },
    ]);
    for (const { href } of body.versions[1].links)
      expect((await built.app.inject({ url: href })).statusCode, href).toBe(200);
  });
});

describe('DELETE /datasets/{id}/versions/{version}', () => {
  /** A batch job that read v1 of rain, in `phase`. */
  async function createJob(built: Built, name: string, phase: string) {
    await built.cluster.create(processingJobKind, {
      apiVersion: API_VERSION,
      kind: 'ProcessingJob',
      metadata: { name, namespace: 'default' },
      spec: { process: { process_graph: {} }, maxAttempts: 1, cancelRequested: false },
    });
    const status = { phase, inputs: [{ dataset: 'rain', version: 'v1' }] };
    await built.cluster.patchStatus(processingJobKind, name, { type: 'merge', body: { status } }, 'default');
  }
  const remove = (built: Built, version: string) =>
    built.app.inject({ method: 'DELETE', url: `/datasets/rain/versions/${version}` });

  it('refuses the served version with 409', async () => {
    const built = await build();
    await servedDataset(built, 'v2');
    const answer = await remove(built, 'v2');
    expect([answer.statusCode, answer.json().detail]).toEqual([
      409,
      'Version v2 of dataset rain is the one served; it can be removed once another is',
    ]);
  });

  it('refuses a version pinned by an unfinished job, or by an unfinished delivery of a job that read it, naming them', async () => {
    const built = await build();
    await servedDataset(built, 'v2');
    await createJob(built, 'ndvi', 'running');
    await createJob(built, 'done', 'finished');
    await built.cluster.create(deliveryKind, {
      apiVersion: API_VERSION,
      kind: 'Delivery',
      metadata: { name: 'send', namespace: 'default' },
      spec: { exportId: 'x', jobId: 'done', dryRun: false, contentHash: 'h' },
    });
    await built.cluster.patchStatus(
      deliveryKind,
      'send',
      { type: 'merge', body: { status: { phase: 'running' } } },
      'default',
    );
    const answer = await remove(built, 'v1');
    expect([answer.statusCode, answer.json().detail]).toEqual([
      409,
      'Version v1 of dataset rain is pinned by ProcessingJob ndvi, Delivery send; it can be removed once they end',
    ]);
    const stored = await built.cluster.get<Dataset>(datasetKind, 'rain', 'default');
    expect(stored?.spec.removeVersions).toBeUndefined();
  });

  it('asks the operator to remove an unpinned version: 202 with the version, recorded in the spec', async () => {
    const built = await build();
    await servedDataset(built, 'v2');
    await createJob(built, 'done', 'finished');
    const answer = await remove(built, 'v1');
    expect(answer.statusCode).toBe(202);
    expect(answer.json()).toMatchObject({ id: 'v1', current: false, removal_requested: true });
    const stored = await built.cluster.get<Dataset>(datasetKind, 'rain', 'default');
    expect(stored?.spec.removeVersions).toEqual(['v1']);
    expect((await remove(built, 'v9')).json()).toEqual({ detail: 'Dataset rain has no retained version v9' });
  });
});
