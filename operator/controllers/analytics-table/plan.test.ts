import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../core/cluster/objects.ts';
import type {
  AnalyticsTable,
  AnalyticsTableStatus,
  AnalyticsTableVersion,
} from '../../../core/resources/analytics-table/schema.ts';
import type { Workflow } from '../../../core/resources/workflow/schema.ts';
import type { JobState } from '../../jobs/runner.ts';
import type { Action } from '../../runtime/actions.ts';
import type { AnalyticsTableInput } from '../../worker/analytics-table-input.ts';
import { planAnalyticsTable } from './plan.ts';
import { MAX_ATTEMPTS, TABLE_FINALIZER, type AnalyticsTableObserved } from './steps.ts';

const now = new Date('2026-11-28T10:00:00Z');

const tableOf = (status?: AnalyticsTableStatus, limit = 2): AnalyticsTable =>
  ({
    apiVersion: 'climate.stratus.dev/v1alpha1',
    kind: 'AnalyticsTable',
    metadata: { name: 't', namespace: 'default', generation: 1, finalizers: [TABLE_FINALIZER] },
    spec: {
      source: { dataset: 'sample' },
      featureCollection: 'districts',
      periodTypes: ['monthly'],
      statistics: ['mean'],
      weighting: 'coverage',
      tableHistoryLimit: limit,
    },
    ...(status && { status }),
  }) as AnalyticsTable;

const object = (kind: string, name: string, status: Record<string, unknown>) =>
  ({
    apiVersion: 'climate.stratus.dev/v1alpha1',
    kind,
    metadata: { name, namespace: 'default' },
    status,
  }) as KubeObject;

const sources = (version = 'v2', path = 'features/districts/a.parquet') => ({
  dataset: object('Dataset', 'sample', { currentVersion: version }),
  featureCollection: object('FeatureCollection', 'districts', { path }),
  population: undefined,
  storageRoot: '/store',
  deliveredVersions: [] as string[],
});

const versionOf = (id: string, sourceVersion: string): AnalyticsTableVersion => ({
  id,
  path: `analytics/t/versions/${id}`,
  sourceVersion,
  featureCollectionPath: 'features/districts/a.parquet',
  generation: 1,
  rows: 10,
  computedPeriods: 1,
  cellsRead: 100,
  publishedAt: '2026-11-28T09:00:00Z',
});

const attempt = (name: string, phase: JobState['phase'], more: Partial<JobState> = {}): JobState => ({
  name,
  phase,
  startedAt: '2026-11-28T09:59:00Z',
  ...more,
});

const plan = (
  table: AnalyticsTable,
  job?: JobState,
  more: Omit<AnalyticsTableObserved, 'job' | 'cleanup'> = sources(),
) => planAnalyticsTable(table, { job, cleanup: undefined, ...more }, now);
const statusOf = (actions: Action[]) =>
  (actions.find((a) => a.kind === 'patchStatus') as { status: AnalyticsTableStatus } | undefined)?.status;
const reasonOf = (actions: Action[]) => statusOf(actions)?.conditions?.find((c) => c.type === 'Ready')?.reason;
const started = (actions: Action[]) =>
  (actions.find((a) => a.kind === 'startJob') as { job: { name: string; input: AnalyticsTableInput } } | undefined)
    ?.job;

const served = versionOf('t1', 'v1');
const target = { sourceVersion: 'v2', featureCollectionPath: 'features/districts/a.parquet', generation: 1 };
const building = { target, attempt: 2, runFirstAttempt: 2, jobName: 't-a2', table: served, versions: [served] };

describe('AnalyticsTable planner', () => {
  it('waits while the dataset has no served version', () => {
    const { actions, outcome } = plan(tableOf(), undefined, { ...sources(), dataset: object('Dataset', 'sample', {}) });
    expect(reasonOf(actions)).toBe('Waiting');
    expect(started(actions)).toBeUndefined();
    expect(outcome.kind).toBe('done');
  });

  it('targets a workflow source at the Workflow generation and its datasets, and hands the worker the Workflow', () => {
    const scaled = {
      apiVersion: 'climate.stratus.dev/v1alpha1',
      kind: 'Workflow',
      metadata: { name: 'scaled', namespace: 'default', generation: 3 },
      spec: { id: 'scaled', processGraph: {} },
    } as unknown as Workflow;
    const table = {
      ...tableOf(),
      spec: { ...tableOf().spec, source: { workflow: { name: 'scaled', parameters: { factor: 2 } } } },
    } as AnalyticsTable;
    const observed = { ...sources(), dataset: undefined };
    const waiting = plan(table, undefined, {
      ...observed,
      workflow: { object: scaled, inputs: [object('Dataset', 'sample', {})] },
    });
    expect(reasonOf(waiting.actions)).toBe('Waiting');
    const inputs = [
      object('Dataset', 'sample', { currentVersion: 'v2' }),
      object('Dataset', 'era5', { currentVersion: 'e7' }),
    ];
    const targeted = plan(table, undefined, { ...observed, workflow: { object: scaled, inputs } });
    expect(statusOf(targeted.actions)?.target?.sourceVersion).toBe('scaled@3,era5@e7,sample@v2');
    const building = { ...statusOf(targeted.actions), conditions: undefined } as AnalyticsTableStatus;
    const job = started(
      plan({ ...table, status: building }, undefined, {
        ...observed,
        workflow: { object: scaled, inputs },
      }).actions,
    );
    expect(job?.input.resources.map((o) => `${o.kind}/${o.metadata.name}`)).toEqual([
      'FeatureCollection/districts',
      'Workflow/scaled',
      'Dataset/sample',
      'Dataset/era5',
    ]);
  });

  it('fails a workflow source whose collection parameter has no value, with the message the observation gives', () => {
    const table = {
      ...tableOf(),
      spec: { ...tableOf().spec, source: { workflow: { name: 'anomaly', parameters: {} } } },
    } as AnalyticsTable;
    const anomaly = { metadata: { name: 'anomaly', generation: 1 }, spec: { id: 'anomaly' } } as unknown as Workflow;
    const problem = 'Workflow anomaly loads the collection named by its parameter collection, which has no value.';
    const { actions, outcome } = plan(table, undefined, {
      ...sources(),
      dataset: undefined,
      workflow: { object: anomaly, inputs: [object('Dataset', 'sample', { currentVersion: 'v2' })], problem },
    });
    expect(reasonOf(actions)).toBe('Failed');
    expect(statusOf(actions)?.conditions?.find((c) => c.type === 'Ready')?.message).toBe(problem);
    expect(started(actions)).toBeUndefined();
    expect(outcome.kind).toBe('done');
  });

  it('stalls a source that names both a dataset and a workflow, or neither, as the schema refuses it', () => {
    for (const source of [{ dataset: 'sample', workflow: { name: 'scaled', parameters: {} } }, {}]) {
      const table = { ...tableOf(), spec: { ...tableOf().spec, source } } as AnalyticsTable;
      const { actions } = plan(table);
      expect(reasonOf(actions)).toBe('Failed');
      expect(statusOf(actions)?.conditions?.find((c) => c.type === 'Ready')?.message).toBe(
        'spec.source set dataset or workflow, exactly one of them.',
      );
      expect(started(actions)).toBeUndefined();
    }
  });

  it('targets a build at a new served version of the dataset, then starts its attempt extending the served table', () => {
    const targeted = plan(tableOf({ attempt: 1, table: served, versions: [served] }));
    expect(statusOf(targeted.actions)).toMatchObject({ target, attempt: 2, jobName: 't-a2' });
    expect(reasonOf(targeted.actions)).toBe('Building');
    const job = started(plan(tableOf(building)).actions);
    expect(job?.name).toBe('t-a2');
    expect(job?.input).toMatchObject({ previous: served, keep: ['t1'], generation: 1, attempt: 2 });
  });

  it('keeps, besides the history limit, the versions unfinished deliveries read, however old', () => {
    const older = versionOf('t0', 'v0');
    const table = tableOf({ ...building, versions: [served, older] });
    expect(started(plan(table).actions)?.input.keep).toEqual(['t1']);
    const delivering = { ...sources(), deliveredVersions: ['t0', 't1'] };
    expect(started(plan(table, undefined, delivering).actions)?.input.keep).toEqual(['t1', 't0']);
  });

  it('builds the whole table again when the spec changed (the served table is of another generation)', () => {
    const old = { ...served, generation: 0 };
    const job = started(plan(tableOf({ ...building, table: old, versions: [old] })).actions);
    expect(job?.input.previous).toBeUndefined();
  });

  it('publishes what the attempt wrote and keeps tableHistoryLimit versions', () => {
    const older = versionOf('t0', 'v0');
    const written = versionOf('t2', 'v2');
    const { actions } = plan(
      tableOf({ ...building, versions: [served, older] }),
      attempt('t-a2', 'succeeded', { result: written }),
    );
    expect(statusOf(actions)?.table).toEqual(written);
    expect(statusOf(actions)?.versions?.map((v) => v.id)).toEqual(['t2', 't1']);
    expect(reasonOf(actions)).toBe('Ready');
    expect(actions.some((a) => a.kind === 'event' && a.reason === 'Published')).toBe(true);
  });

  it('plans nothing once the served table is of what the sources are', () => {
    const written = versionOf('t2', 'v2');
    const { actions, outcome } = plan(tableOf({ ...building, table: written, versions: [written] }));
    expect(actions).toEqual([]);
    expect(outcome).toEqual({ kind: 'done', reason: 'table current' });
  });

  it('retries a failed attempt after the backoff, and after the last one fails keeps the previous table served', () => {
    const failure = attempt('t-a2', 'failed', { error: { type: 'WorkerCrashed', message: 'killed' } });
    const waiting = plan(tableOf(building), failure);
    expect(reasonOf(waiting.actions)).toBe('Retrying');
    expect(waiting.outcome.kind).toBe('requeueAfter');
    const last = 2 + MAX_ATTEMPTS - 1;
    const { actions } = plan(
      tableOf({ ...building, attempt: last, jobName: `t-a${last}` }),
      attempt(`t-a${last}`, 'failed', { error: { type: 'WorkerCrashed', message: 'killed' } }),
    );
    expect(reasonOf(actions)).toBe('Failed');
    expect(statusOf(actions)?.table).toEqual(served);
    const failed = statusOf(actions)!;
    expect(plan(tableOf(failed), attempt(`t-a${last}`, 'failed')).actions).toEqual([]);
  });
});
