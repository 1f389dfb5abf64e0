import { describe, expect, it } from 'vitest';
import type { Condition } from '../../../core/resources/conditions.ts';
import type { Dataset } from '../../../core/resources/dataset/schema.ts';
import { API_VERSION } from '../../../core/resources/registry.ts';
import { ingestionKind, type Ingestion } from '../../../core/resources/ingestion/schema.ts';
import { planDataset, type DatasetObserved } from './plan.ts';

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
