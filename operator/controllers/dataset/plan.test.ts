import { describe, expect, it } from 'vitest';
import type { Condition } from '../../../core/resources/conditions.ts';
import type { Dataset } from '../../../core/resources/dataset/schema.ts';
import { API_VERSION } from '../../../core/resources/registry.ts';
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
    observed: { sourceExists: true },
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
    observed: { sourceExists: true },
    want: [{ type: 'Ready', status: 'True', reason: 'Materialized', message: 'Serving version v3.' }],
    reason: 'Materialized',
  },
  {
    name: 'a dataset whose source is missing is Stalled',
    resource: dataset(),
    observed: { sourceExists: false },
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
