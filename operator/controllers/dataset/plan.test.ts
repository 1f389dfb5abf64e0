import { describe, expect, it } from 'vitest';
import type { Condition } from '../../../core/resources/conditions.ts';
import type { Dataset, DatasetVersion } from '../../../core/resources/dataset/schema.ts';
import { API_VERSION } from '../../../core/resources/registry.ts';
import { ingestionKind, type Ingestion } from '../../../core/resources/ingestion/schema.ts';
import type { VersionPin } from '../../../core/resources/dataset/retention.ts';
import { planDataset, type DatasetObserved } from './plan.ts';
import { PIN_RECHECK_MS } from './retention.ts';

const now = new Date('2026-11-22T12:00:00Z');

const dataset = (status?: Dataset['status']): Dataset => ({
  apiVersion: API_VERSION,
  kind: 'Dataset',
  metadata: { name: 'd', namespace: 'default', generation: 1 } as Dataset['metadata'],
  spec: {
    source: 'chirps',
    datasetName: 'D',
    itemType: 'coverage',
    license: 'other',
    format: 'zarr',
    zarrVersion: 2,
    publish: true,
    successfulRunsHistoryLimit: 2,
    versionHistoryLimit: 2,
    failedRunsHistoryLimit: 1,
  },
  ...(status ? { status } : {}),
});

const rows: {
  name: string;
  resource: Dataset;
  observed: DatasetObserved;
  want: Partial<Condition>[];
  reason: string;
}[] = [
  {
    name: 'a new dataset waits for an ingestion: Ready Unknown, Reconciling',
    resource: dataset(),
    observed: { sourceExists: true, runs: [] },
    want: [
      { type: 'Ready', status: 'Unknown', reason: 'AwaitingIngestion' },
      { type: 'Reconciling', status: 'True', reason: 'AwaitingIngestion' },
    ],
    reason: 'AwaitingIngestion',
  },
  {
    name: 'a materialized dataset is Ready and no longer Reconciling',
    resource: dataset({
      currentVersion: 'v3',
      conditions: [
        {
          type: 'Reconciling',
          status: 'True',
          reason: 'AwaitingIngestion',
          message: '',
          lastTransitionTime: now.toISOString(),
        },
      ],
    }),
    observed: { sourceExists: true, runs: [] },
    want: [{ type: 'Ready', status: 'True', reason: 'Materialized', message: 'Serving version v3.' }],
    reason: 'Materialized',
  },
  {
    name: 'a dataset whose source is missing is Stalled',
    resource: dataset(),
    observed: { sourceExists: false, runs: [] },
    want: [
      { type: 'Ready', status: 'False', reason: 'SourceNotFound' },
      { type: 'Stalled', status: 'True', reason: 'SourceNotFound' },
    ],
    reason: 'SourceNotFound',
  },
];

describe('Dataset planner', () => {
  it.each(rows.map((r) => [r.name, r] as const))('%s', (_name, row) => {
    const plan = planDataset(row.resource, row.observed, now);
    const [action] = plan.actions;
    expect(action?.kind).toBe('patchStatus');
    const status = action?.kind === 'patchStatus' ? action.status : {};
    expect(status.publication).toEqual({ status: 'unpublished' });
    const conditions = status.conditions as Condition[];
    expect(conditions).toHaveLength(row.want.length);
    row.want.forEach((want, i) => expect(conditions[i]).toMatchObject({ ...want, observedGeneration: 1 }));
    expect(plan.outcome).toEqual({ kind: 'done', reason: row.reason });
  });
});

const run = (name: string, phase: string, finishedAt?: string): Ingestion => ({
  apiVersion: API_VERSION,
  kind: 'Ingestion',
  metadata: { name, namespace: 'default', creationTimestamp: '2024-01-01T00:00:00Z' } as Ingestion['metadata'],
  spec: {
    source: 'chirps',
    datasetId: 'd',
    mode: 'ingestion',
    overwrite: false,
    publish: true,
    maxAttempts: 3,
    cancelRequested: false,
  },
  status: { phase: phase as never, ...(finishedAt && { finishedAt }) },
});

describe('Dataset run history', () => {
  it('deletes the finished runs past its limits, newest of each outcome kept, and never a run still going', () => {
    const runs = [
      run('ok-1', 'successful', '2024-01-01T00:00:00Z'),
      run('ok-3', 'successful', '2024-01-03T00:00:00Z'),
      run('ok-2', 'successful', '2024-01-02T00:00:00Z'),
      run('failed-1', 'failed', '2024-01-01T12:00:00Z'),
      run('cancelled-2', 'cancelled', '2024-01-02T12:00:00Z'),
      run('running', 'running'),
      run('retrying', 'retrying'),
    ];
    const plan = planDataset(dataset({ currentVersion: 'v1' }), { sourceExists: true, runs }, now);
    const deleted = plan.actions.flatMap((a) => (a.kind === 'delete' ? [a] : []));
    expect(deleted.map((a) => a.name).sort()).toEqual(['failed-1', 'ok-1']);
    expect(deleted.every((a) => a.ref === ingestionKind && a.namespace === 'default')).toBe(true);
    expect(plan.outcome).toEqual({ kind: 'done', reason: 'Materialized; 2 runs past the history limits' });
  });

  it('keeps every run within its limits', () => {
    const runs = [run('ok-1', 'successful', '2024-01-01T00:00:00Z'), run('failed-1', 'failed', '2024-01-02T00:00:00Z')];
    const plan = planDataset(dataset({ currentVersion: 'v1' }), { sourceExists: true, runs }, now);
    expect(plan.actions.map((a) => a.kind)).toEqual(['patchStatus']);
  });
});

describe('Dataset version retention', () => {
  const version = (id: string, supersededAt?: string): DatasetVersion => ({
    id,
    createdAt: '2026-11-20T00:00:00Z',
    format: 'zarr',
    coverage: { spatial: { xmin: 0, ymin: 0, xmax: 1, ymax: 1 }, temporal: { start: '2024-01-01', end: '2024-01-02' } },
    path: `datasets/d/versions/${id}`,
    ...(supersededAt && { supersededAt }),
  });
  const longAgo = '2026-11-22T11:00:00Z';
  const justNow = '2026-11-22T11:59:00Z';
  const planWith = (versions: DatasetVersion[], pins: VersionPin[] = []) =>
    planDataset(
      dataset({ currentVersion: versions.at(-1)!.id, versions }),
      { sourceExists: true, runs: [], retention: { pins, storageRoot: '/store' } },
      now,
    );
  const statusVersions = (plan: ReturnType<typeof planDataset>) => {
    const write = plan.actions.find((a) => a.kind === 'patchStatus');
    return ((write?.kind === 'patchStatus' ? write.status.versions : []) as DatasetVersion[]).map((v) => v.id);
  };
  const removal = (plan: ReturnType<typeof planDataset>) =>
    plan.actions.flatMap((a) => (a.kind === 'startJob' ? [a.job] : []));

  it('drops the versions past the limit from the status, then starts the worker that removes their files', () => {
    const plan = planWith([version('v1', longAgo), version('v2', longAgo), version('v3', longAgo), version('v4')]);
    expect(statusVersions(plan)).toEqual(['v3', 'v4']);
    expect(plan.actions.map((a) => a.kind)).toEqual(['patchStatus', 'startJob']);
    expect(removal(plan)).toEqual([
      {
        name: expect.stringMatching(/^d-rm-[0-9a-f]{12}$/),
        task: 'remove-dataset-versions',
        input: { datasetId: 'd', storageRoot: '/store', versions: ['v1', 'v2'] },
      },
    ]);
    expect(plan.outcome).toEqual({ kind: 'done', reason: 'Materialized; versions v1, v2 expired' });
  });

  it('keeps a version within its grace period, and looks again when the period ends', () => {
    const plan = planWith([version('v1', longAgo), version('v2', justNow), version('v3', longAgo), version('v4')]);
    expect(statusVersions(plan)).toEqual(['v2', 'v3', 'v4']);
    expect(removal(plan).map((j) => (j.input as { versions: string[] }).versions)).toEqual([['v1']]);
    expect(plan.outcome).toMatchObject({ kind: 'requeueAfter', ms: 9 * 60 * 1000 });
  });

  it('keeps a pinned version until its run releases it, looking again meanwhile', () => {
    const versions = [version('v1', longAgo), version('v2', longAgo), version('v3', longAgo), version('v4')];
    const pinned = planWith(versions, [{ version: 'v1', holder: 'ProcessingJob ndvi' }]);
    expect(statusVersions(pinned)).toEqual(['v1', 'v3', 'v4']);
    expect(pinned.outcome).toMatchObject({ kind: 'requeueAfter', ms: PIN_RECHECK_MS });
  });

  it('plans nothing for a dataset within its limit', () => {
    const plan = planWith([version('v1', longAgo), version('v2')]);
    expect(plan.actions.map((a) => a.kind)).toEqual(['patchStatus']);
    expect(plan.outcome).toEqual({ kind: 'done', reason: 'Materialized' });
  });
});
