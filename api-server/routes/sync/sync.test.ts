import { mkdir, rm } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import type { Cluster } from '../../../core/cluster/port.ts';
import { formatPeriod, periodRange } from '../../../core/periods/index.ts';
import { gridCovering } from '../../../core/stores/raster-grid.ts';
import { dataSourceKind } from '../../../core/resources/data-source/schema.ts';
import { datasetKind } from '../../../core/resources/dataset/schema.ts';
import { ingestionKind, type Ingestion } from '../../../core/resources/ingestion/schema.ts';
import { API_VERSION } from '../../../core/resources/registry.ts';
import { openCubeSink } from '../../../core/stores/open.ts';
import { versionDir } from '../../../core/stores/layout.ts';
import { setCurrentVersion } from '../../../test/support/current-version.ts';
import { build } from '../../test/build.ts';

const bbox: [number, number, number, number] = [-13.5, 6.9, -13.2, 7.1];

async function sampleSource(cluster: Cluster) {
  await cluster.create(dataSourceKind, {
    apiVersion: API_VERSION,
    kind: 'DataSource',
    metadata: { name: 'sample', namespace: 'default' },
    spec: {
      datasetName: 'Sample',
      itemType: 'coverage',
      periodType: 'daily',
      provider: { name: 'sample', parameters: {} },
      sync: { kind: 'temporal' },
    },
  });
}

/** A dataset whose current version is a Zarr store holding `start`..`end`; its status says otherwise on purpose. */
async function materialized(cluster: Cluster, storageRoot: string, start: string, end: string) {
  await cluster.create(datasetKind, {
    apiVersion: API_VERSION,
    kind: 'Dataset',
    metadata: { name: 'sample', namespace: 'default' },
    spec: { source: 'sample', datasetName: 'Sample', itemType: 'coverage', periodType: 'daily', format: 'zarr' },
  });
  const dir = versionDir(storageRoot, 'sample', 'v1');
  await mkdir(dir, { recursive: true });
  const periods = periodRange('daily', start, end);
  const grid = gridCovering(bbox, 0.1);
  const sink = await openCubeSink(
    dir,
    { format: 'zarr', zarrVersion: 2 },
    { variable: 'value', periodType: 'daily', periods, grid, attributes: {} },
  );
  for (const _ of periods) await sink.append(new Float32Array(grid.lat.length * grid.lon.length));
  await sink.finish();
  await setCurrentVersion(cluster, 'sample', 'v1', { start, end: start });
}

describe('GET /sync/{dataset_id}/plan', () => {
  it('plans an append after the end the store holds, not the end the status claims', async () => {
    const { app, cluster, storageRoot } = await build();
    await sampleSource(cluster);
    await materialized(cluster, storageRoot, '2025-01-01', '2025-01-31');
    const res = await app.inject({ url: '/sync/sample/plan?end=2025-02-10' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      source_dataset_id: 'sample',
      sync_kind: 'temporal',
      action: 'append',
      reason: 'new_periods_available',
      message: expect.any(String),
      current_start: '2025-01-01',
      current_end: '2025-01-31',
      target_end: '2025-02-10',
      target_end_source: 'request',
      delta_start: '2025-02-01',
      delta_end: '2025-02-10',
    });
  });

  it('reaches today when end is blank or absent', async () => {
    const { app, cluster, storageRoot } = await build();
    await sampleSource(cluster);
    await materialized(cluster, storageRoot, '2025-01-01', '2025-01-31');
    for (const url of ['/sync/sample/plan', '/sync/sample/plan?end=']) {
      const today = formatPeriod({ type: 'daily', start: new Date() });
      expect((await app.inject({ url })).json()).toMatchObject({
        action: 'append',
        target_end: today,
        target_end_source: 'today',
        delta_end: today,
      });
    }
  });

  it('is a no_op for an end before the stored end', async () => {
    const { app, cluster, storageRoot } = await build();
    await sampleSource(cluster);
    await materialized(cluster, storageRoot, '2025-01-01', '2025-01-31');
    expect((await app.inject({ url: '/sync/sample/plan?end=2025-01-15' })).json()).toMatchObject({
      action: 'no_op',
      reason: 'end_before_current_end',
      delta_start: null,
    });
  });

  it('says not_syncable for a dataset that was never materialized', async () => {
    const { app, cluster } = await build();
    await sampleSource(cluster);
    await cluster.create(datasetKind, {
      apiVersion: API_VERSION,
      kind: 'Dataset',
      metadata: { name: 'sample', namespace: 'default' },
      spec: { source: 'sample', datasetName: 'Sample', periodType: 'daily' },
    });
    expect((await app.inject({ url: '/sync/sample/plan' })).json()).toMatchObject({
      action: 'not_syncable',
      reason: 'not_materialized',
    });
  });

  const invalidEnd = (msg: RegExp) => ({
    detail: [{ loc: ['query', 'end'], msg: expect.stringMatching(msg), type: 'invalid_value' }],
  });
  it.each([
    ['a malformed end', '/sync/sample/plan?end=2025-02-30', 422, invalidEnd(/not a daily period/)],
    ['an end in another period form', '/sync/sample/plan?end=2025-02', 422, invalidEnd(/expected the form 2024-01-31/)],
    ['an unknown dataset', '/sync/nowhere/plan', 404, { detail: expect.stringMatching(/Dataset nowhere not found/) }],
  ])('answers %s (%s) with %i and its body', async (_name, url, status, body) => {
    const { app, cluster, storageRoot } = await build();
    await sampleSource(cluster);
    await materialized(cluster, storageRoot, '2025-01-01', '2025-01-31');
    const res = await app.inject({ url });
    expect([res.statusCode, res.json()]).toEqual([status, body]);
  });

  it('answers 422 for a dataset id that could escape the store', async () => {
    const { app } = await build();
    expect((await app.inject({ url: '/sync/..%2Fetc/plan' })).statusCode).toBe(422);
  });

  it('answers 503 when the current version cannot be read', async () => {
    const { app, cluster, storageRoot } = await build();
    await sampleSource(cluster);
    await materialized(cluster, storageRoot, '2025-01-01', '2025-01-31');
    await rm(versionDir(storageRoot, 'sample', 'v1'), { recursive: true });
    const res = await app.inject({ url: '/sync/sample/plan' });
    expect(res.statusCode).toBe(503);
    expect(res.json()).toEqual({ detail: 'The committed store of dataset sample cannot be read' });
  });
});

describe('POST /sync/{dataset_id}', () => {
  it('starts a sync run pinned to the plan, answering 202 with the job when asked to', async () => {
    const { app, cluster, storageRoot } = await build();
    await sampleSource(cluster);
    await materialized(cluster, storageRoot, '2025-01-01', '2025-01-31');
    const res = await app.inject({
      method: 'POST',
      url: '/sync/sample',
      headers: { prefer: 'respond-async' },
      payload: { end: '2025-02-03', publish: false },
    });
    expect(res.statusCode).toBe(202);
    expect(res.headers.location).toBe(`/ingestions/jobs/${res.json().jobID}`);
    expect(res.json()).toMatchObject({ processID: 'sync', status: 'accepted' });
    const run = await cluster.get<Ingestion>(ingestionKind, res.json().jobID, 'default');
    expect(run?.spec).toMatchObject({
      source: 'sample',
      datasetId: 'sample',
      mode: 'sync',
      end: '2025-02-03',
      publish: false,
    });

    const second = await app.inject({ method: 'POST', url: '/sync/sample', payload: {} });
    expect(second.statusCode).toBe(409);
    expect(second.json().detail).toMatch(/is already writing dataset sample/);
  });

  it('answers up_to_date without starting a run', async () => {
    const { app, cluster, storageRoot } = await build();
    await sampleSource(cluster);
    await materialized(cluster, storageRoot, '2025-01-01', '2025-01-31');
    const res = await app.inject({ method: 'POST', url: '/sync/sample', payload: { end: '2025-01-31' } });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      sync_id: null,
      status: 'up_to_date',
      dataset: { dataset_id: 'sample' },
      sync_detail: { action: 'no_op', reason: 'up_to_date' },
    });
    expect((await cluster.list(ingestionKind, { namespace: 'default' })).items).toEqual([]);
  });

  it.each([
    ['an unknown member', { until: '2025-02-01' }, ['body']],
    ['a malformed end', { end: 'soon' }, ['body', 'end']],
  ])('refuses %s with 422 and HTTPValidationError', async (_name, payload, loc) => {
    const { app, cluster, storageRoot } = await build();
    await sampleSource(cluster);
    await materialized(cluster, storageRoot, '2025-01-01', '2025-01-31');
    const res = await app.inject({ method: 'POST', url: '/sync/sample', payload });
    expect(res.statusCode).toBe(422);
    expect(res.json().detail).toEqual([{ loc, msg: expect.any(String), type: expect.any(String) }]);
  });

  it('is refused on a read-only instance', async () => {
    const { app } = await build('instance.name = Test\ninstance.bbox = 0,0,1,1\nread_only = on');
    const res = await app.inject({ method: 'POST', url: '/sync/sample', payload: {} });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({ id: 'read-only', code: 'PermissionsInsufficient' });
  });
});
