import { describe, expect, it } from 'vitest';
import type { DataSource } from '../../../core/resources/data-source/schema.ts';
import type { Dataset } from '../../../core/resources/dataset/schema.ts';
import type { Ingestion } from '../../../core/resources/ingestion/schema.ts';
import { API_VERSION } from '../../../core/resources/registry.ts';
import type { JobState } from '../../jobs/runner.ts';
import type { Action } from '../../runtime/actions.ts';
import { planIngestion, retryDelaySeconds, type IngestionObserved } from './plan.ts';

const now = new Date('2026-11-22T12:00:00Z');
const source = {
  metadata: { name: 'sample' },
  spec: { datasetName: 'Sample', periodType: 'daily', provider: { name: 'sample' } },
} as DataSource;
const instance = { storageRoot: '/store', bbox: [-13.5, 6.9, -10.2, 10] as [number, number, number, number] };
const version = (id: string, start: string, end: string) => ({
  id,
  createdAt: '2026-11-22T11:00:00Z',
  format: 'zarr' as const,
  coverage: { spatial: { xmin: -13.5, ymin: 6.9, xmax: -10.2, ymax: 10 }, temporal: { start, end } },
  requestScope: { start, end, bbox: instance.bbox },
  path: `datasets/sample/versions/${id}`,
});
const dataset = (versions: ReturnType<typeof version>[]) =>
  ({
    metadata: { name: 'sample' },
    spec: { source: 'sample', datasetName: 'Sample', periodType: 'daily', format: 'zarr', zarrVersion: 2 },
    status: { currentVersion: versions.at(-1)?.id, versions },
  }) as unknown as Dataset;
const observe = (extra: Partial<IngestionObserved> = {}): IngestionObserved => ({
  source,
  dataset: undefined,
  job: undefined,
  earlierWriters: [],
  instance,
  ...extra,
});

const run = (status?: Ingestion['status'], spec: Partial<Ingestion['spec']> = {}): Ingestion => ({
  apiVersion: API_VERSION,
  kind: 'Ingestion',
  metadata: { name: 'run', namespace: 'default', generation: 1 } as Ingestion['metadata'],
  spec: {
    source: 'sample',
    mode: 'ingestion',
    overwrite: false,
    publish: true,
    maxAttempts: 3,
    cancelRequested: false,
    start: '2024-01-01',
    end: '2024-01-31',
    ...spec,
  },
  ...(status ? { status } : {}),
});

const job = (phase: JobState['phase'], extra: Partial<JobState> = {}): JobState => ({
  name: 'run-a1',
  phase,
  startedAt: '2026-11-22T11:59:00Z',
  ...extra,
});

const statusOf = (actions: Action[]) => {
  const write = actions.find((a) => a.kind === 'patchStatus');
  return write?.kind === 'patchStatus'
    ? (write.status as Record<string, unknown> & { conditions: { type: string; status: string; reason: string }[] })
    : undefined;
};

interface Row {
  name: string;
  resource: Ingestion;
  observed: IngestionObserved;
  want: {
    phase?: string;
    attempt?: number;
    kinds: string[];
    ready?: string;
    reason?: string;
    outcome: string;
    extra?: Record<string, unknown>;
  };
}

const rows: Row[] = [
  {
    name: 'a new run is accepted and starts attempt 1',
    resource: run(),
    observed: observe(),
    want: {
      phase: 'accepted',
      attempt: 1,
      kinds: ['apply', 'patchStatus', 'startJob'],
      ready: 'Unknown',
      reason: 'Started',
      outcome: 'done',
    },
  },
  {
    name: 'a running attempt reports its progress in percent',
    resource: run({ phase: 'accepted', attempt: 1 }),
    observed: observe({ job: job('running', { progress: { done: 1, total: 3, message: '2024-01-02' } }) }),
    want: {
      phase: 'running',
      kinds: ['patchStatus'],
      ready: 'Unknown',
      reason: 'Running',
      outcome: 'done',
      extra: { progress: { done: 1, total: 3, message: '2024-01-02', percent: 33.3 } },
    },
  },
  {
    name: 'a succeeded attempt switches the dataset to the new version, then marks the run successful',
    resource: run({ phase: 'running', attempt: 1 }),
    observed: observe({
      dataset: dataset([version('v1', '2023-12-01', '2023-12-31')]),
      job: job('succeeded', {
        result: { datasetId: 'sample', version: version('v2', '2024-01-01', '2024-01-31') },
        finishedAt: '2026-11-22T12:00:00Z',
      }),
    }),
    want: {
      phase: 'successful',
      kinds: ['patchStatusOf', 'patchStatus', 'event'],
      ready: 'True',
      reason: 'Succeeded',
      outcome: 'done',
      extra: {
        result: { datasetId: 'sample', reused: false, version: 'v2' },
        events: [
          {
            type: 'dataset.updated',
            source: '/datasets/sample',
            eventID: 'run:1',
            data: {
              dataset_id: 'sample',
              version: 'v2',
              action: 'rematerialize',
              previous_end: '2023-12-31',
              current_start: '2024-01-01',
              current_end: '2024-01-31',
            },
          },
        ],
      },
    },
  },
  {
    name: 'a succeeded attempt with a result the planner cannot read fails the run',
    resource: run({ phase: 'running', attempt: 1 }),
    observed: observe({ job: job('succeeded', { result: { periods: 31 } }) }),
    want: { phase: 'failed', kinds: ['patchStatus', 'event'], ready: 'False', reason: 'WorkerError', outcome: 'done' },
  },
  {
    name: 'a run whose periods the current version already holds reuses it without a job',
    resource: run(),
    observed: observe({ dataset: dataset([version('v1', '2024-01-01', '2024-01-31')]) }),
    want: {
      phase: 'successful',
      kinds: ['patchStatus'],
      ready: 'True',
      reason: 'Reused',
      outcome: 'done',
      extra: { result: { datasetId: 'sample', reused: true, version: 'v1' } },
    },
  },
  {
    name: 'overwrite regenerates even a matching version',
    resource: run(undefined, { overwrite: true }),
    observed: observe({ dataset: dataset([version('v1', '2024-01-01', '2024-01-31')]) }),
    want: { phase: 'accepted', attempt: 1, kinds: ['patchStatus', 'startJob'], reason: 'Started', outcome: 'done' },
  },
  {
    name: 'a run waits while an earlier run writes the same dataset',
    resource: run(),
    observed: observe({ earlierWriters: ['older-run'] }),
    want: {
      phase: 'accepted',
      kinds: ['patchStatus'],
      ready: 'Unknown',
      reason: 'WaitingForWriter',
      outcome: 'requeueAfter',
    },
  },
  {
    name: 'a malformed period fails the run before any job starts',
    resource: run(undefined, { start: '2024-13-01' }),
    observed: observe(),
    want: {
      phase: 'failed',
      kinds: ['patchStatus', 'event'],
      ready: 'False',
      reason: 'InvalidRequest',
      outcome: 'done',
    },
  },
  {
    name: 'a failed attempt with attempts left retries after the backoff',
    resource: run({ phase: 'running', attempt: 1 }),
    observed: observe({ job: job('failed', { error: { type: 'UpstreamUnavailable', message: '503' } }) }),
    want: {
      phase: 'retrying',
      attempt: 2,
      kinds: ['patchStatus', 'event'],
      ready: 'Unknown',
      reason: 'Retrying',
      outcome: 'requeueAfter',
      extra: { retryAfter: '2026-11-22T12:01:00.000Z' },
    },
  },
  {
    name: 'a retrying run waits until retryAfter',
    resource: run({ phase: 'retrying', attempt: 2, retryAfter: '2026-11-22T12:01:00.000Z' }),
    observed: observe(),
    want: { kinds: [], outcome: 'requeueAfter' },
  },
  {
    name: 'a retrying run starts its next attempt once retryAfter has passed',
    resource: run({ phase: 'retrying', attempt: 2, retryAfter: '2026-11-22T11:59:00.000Z' }),
    observed: observe(),
    want: {
      phase: 'running',
      attempt: 2,
      kinds: ['apply', 'patchStatus', 'startJob'],
      reason: 'Started',
      outcome: 'done',
    },
  },
  {
    name: 'the last failed attempt fails the run and stalls it',
    resource: run({ phase: 'running', attempt: 3 }),
    observed: observe({
      job: job('failed', { name: 'run-a3', error: { type: 'ProviderUnavailable', message: 'no provider' } }),
    }),
    want: {
      phase: 'failed',
      kinds: ['patchStatus', 'event'],
      ready: 'False',
      reason: 'ProviderUnavailable',
      outcome: 'done',
      extra: { error: { type: 'ProviderUnavailable', message: 'no provider' } },
    },
  },
  {
    name: 'a cancel request stops the running attempt first',
    resource: run({ phase: 'running', attempt: 1 }, { cancelRequested: true }),
    observed: observe({ job: job('running') }),
    want: { kinds: ['cancelJob'], outcome: 'done' },
  },
  {
    name: 'a cancel request with no attempt running cancels the run',
    resource: run({ phase: 'retrying', attempt: 2 }, { cancelRequested: true }),
    observed: observe(),
    want: { phase: 'cancelled', kinds: ['patchStatus', 'event'], ready: 'False', reason: 'Cancelled', outcome: 'done' },
  },
  {
    name: 'an attempt that stopped on cancellation cancels the run',
    resource: run({ phase: 'running', attempt: 1 }, { cancelRequested: true }),
    observed: observe({ job: job('cancelled') }),
    want: { phase: 'cancelled', kinds: ['patchStatus', 'event'], reason: 'Cancelled', outcome: 'done' },
  },
  {
    name: 'a run of a source that does not exist fails at once',
    resource: run(),
    observed: observe({ source: undefined }),
    want: { phase: 'failed', kinds: ['patchStatus'], ready: 'False', reason: 'SourceNotFound', outcome: 'done' },
  },
  {
    name: 'a finished run plans nothing',
    resource: run({ phase: 'successful', attempt: 1 }),
    observed: observe({ job: job('succeeded') }),
    want: { kinds: [], outcome: 'done' },
  },
];

describe('Ingestion planner', () => {
  it.each(rows.map((r) => [r.name, r] as const))('%s', (_name, row) => {
    const plan = planIngestion(row.resource, row.observed, now);
    expect(plan.actions.map((a) => a.kind)).toEqual(row.want.kinds);
    expect(plan.outcome.kind).toBe(row.want.outcome);
    const status = statusOf(plan.actions);
    if (row.want.phase) expect(status?.phase).toBe(row.want.phase);
    if (row.want.attempt) expect(status?.attempt).toBe(row.want.attempt);
    if (row.want.ready) expect(status?.conditions.find((c) => c.type === 'Ready')?.status).toBe(row.want.ready);
    if (row.want.reason) expect(status?.conditions[0]?.reason).toBe(row.want.reason);
    if (row.want.extra) expect(status).toMatchObject(row.want.extra);
    const start = plan.actions.find((a) => a.kind === 'startJob');
    if (start?.kind === 'startJob')
      expect(start.job).toMatchObject({
        name: `run-a${row.want.attempt}`,
        task: 'ingestion',
        input: {
          datasetId: 'sample',
          storageRoot: '/store',
          provider: { name: 'sample' },
          start: '2024-01-01',
          end: '2024-01-31',
        },
      });
  });

  it('keeps the retained versions only, newest last, in the switch', () => {
    const versions = [version('v1', '2023-11-01', '2023-11-30'), version('v2', '2023-12-01', '2023-12-31')];
    const plan = planIngestion(
      run({ phase: 'running', attempt: 1 }, { publish: true }),
      observe({
        dataset: dataset(versions),
        job: job('succeeded', { result: { datasetId: 'sample', version: version('v3', '2024-01-01', '2024-01-31') } }),
      }),
      now,
    );
    const switchAction = plan.actions[0];
    expect(switchAction).toMatchObject({ kind: 'patchStatusOf', name: 'sample' });
    if (switchAction?.kind !== 'patchStatusOf') return;
    expect(switchAction.status).toMatchObject({
      currentVersion: 'v3',
      extent: { temporal: { start: '2024-01-01', end: '2024-01-31' } },
      publication: { status: 'published', publishedAt: now.toISOString() },
    });
    expect((switchAction.status.versions as { id: string }[]).map((v) => v.id)).toEqual(['v2', 'v3']);
  });

  it('backs off min(240, 60 * 2^(n-1)) seconds after attempt n', () => {
    const options = { retryBaseSeconds: 60, retryCapSeconds: 240 };
    expect([1, 2, 3, 4, 5].map((n) => retryDelaySeconds(n, options))).toEqual([60, 120, 240, 240, 240]);
  });
});

describe('Ingestion planner, sync runs', () => {
  // The sample source is available through today (2026-11-22); the store holds data through 2026-11-20.
  const syncRun = (status?: Ingestion['status'], spec: Partial<Ingestion['spec']> = {}) =>
    run(status, { mode: 'sync', start: undefined, end: undefined, datasetId: 'sample', ...spec });
  const stored = dataset([version('v1', '2026-11-01', '2026-11-20')]);
  const startJobOf = (actions: Action[]) => {
    const start = actions.find((a) => a.kind === 'startJob');
    return start?.kind === 'startJob' ? (start.job.input as Record<string, unknown>) : undefined;
  };

  it('starts an attempt that appends from the period after the committed end, on top of the current version', () => {
    const plan = planIngestion(
      syncRun(),
      observe({ dataset: stored, committed: { start: '2026-11-01', end: '2026-11-20' } }),
      now,
    );
    expect(plan.actions.map((a) => a.kind)).toEqual(['patchStatus', 'startJob']);
    expect(startJobOf(plan.actions)).toMatchObject({
      start: '2026-11-21',
      end: '2026-11-22',
      base: 'datasets/sample/versions/v1',
    });
  });

  it('plans from the store, not from the status, when the two disagree', () => {
    const plan = planIngestion(
      syncRun({ phase: 'retrying', attempt: 2, retryAfter: '2026-11-22T11:00:00Z' }),
      observe({ dataset: stored, committed: { start: '2026-11-01', end: '2026-11-21' } }),
      now,
    );
    expect(startJobOf(plan.actions)).toMatchObject({ start: '2026-11-22', end: '2026-11-22', attempt: 2 });
  });

  it('finishes an up-to-date sync without a job and without a dataset.updated event', () => {
    const plan = planIngestion(
      syncRun(),
      observe({ dataset: stored, committed: { start: '2026-11-01', end: '2026-11-22' } }),
      now,
    );
    expect(plan.actions.map((a) => a.kind)).toEqual(['patchStatus']);
    expect(statusOf(plan.actions)).toMatchObject({
      phase: 'successful',
      result: { datasetId: 'sample', upToDate: true, syncDetail: { action: 'no_op', reason: 'up_to_date' } },
    });
    expect(statusOf(plan.actions)!.events).toBeUndefined();
  });

  it.each<[string, Partial<IngestionObserved>, string]>([
    ['a dataset never ingested', { dataset: undefined }, 'NotSyncable'],
    ['a store that cannot be read', { dataset: stored, committed: { error: 'gone' } }, 'StoreUnreadable'],
    ['a dataset with no committed version', { dataset: dataset([]) }, 'NotSyncable'],
  ])('fails a sync of %s without starting a job', (_name, observed, type) => {
    const plan = planIngestion(syncRun(), observe(observed), now);
    expect(plan.actions.map((a) => a.kind)).toEqual(['patchStatus', 'event']);
    expect(statusOf(plan.actions)).toMatchObject({ phase: 'failed', error: { type } });
  });

  it('waits for an earlier writer before reading the store', () => {
    const plan = planIngestion(
      syncRun(),
      observe({ dataset: stored, committed: { error: 'mid-write' }, earlierWriters: ['other'] }),
      now,
    );
    expect(plan.outcome).toMatchObject({ kind: 'requeueAfter' });
    expect(statusOf(plan.actions)!.conditions.find((c) => c.type === 'Ready')?.reason).toBe('WaitingForWriter');
  });

  it('fetches a moved forecast window whole, without a base version', () => {
    const forecastSource = {
      metadata: { name: 'sample' },
      spec: {
        datasetName: 'Forecast',
        periodType: 'daily',
        provider: { name: 'sample' },
        temporalDirection: 'future',
        sync: { kind: 'temporal', availability: { rule: 'forecast-hours', hours: 48 } },
      },
    } as unknown as DataSource;
    const plan = planIngestion(
      syncRun(),
      observe({ source: forecastSource, dataset: stored, committed: { start: '2026-11-20', end: '2026-11-23' } }),
      now,
    );
    const input = startJobOf(plan.actions);
    expect(input).toMatchObject({ start: '2026-11-22', end: '2026-11-24' });
    expect(input?.base).toBeUndefined();
  });

  it('keeps the last progress of an attempt that ended before a running status was written', () => {
    const plan = planIngestion(
      syncRun({ phase: 'accepted', attempt: 1 }),
      observe({
        dataset: stored,
        job: job('succeeded', {
          result: { datasetId: 'sample', version: version('v2', '2026-11-01', '2026-11-22'), action: 'append' },
          progress: { done: 2, total: 2, message: 'stored 2026-11-22' },
        }),
      }),
      now,
    );
    expect(statusOf(plan.actions)).toMatchObject({
      phase: 'successful',
      progress: { done: 2, total: 2, percent: 100 },
    });
  });

  it('records an append as the action of the dataset.updated event', () => {
    const plan = planIngestion(
      syncRun({ phase: 'running', attempt: 1 }),
      observe({
        dataset: stored,
        job: job('succeeded', {
          result: { datasetId: 'sample', version: version('v2', '2026-11-01', '2026-11-22'), action: 'append' },
        }),
      }),
      now,
    );
    expect(statusOf(plan.actions)!.events).toEqual([
      expect.objectContaining({
        data: expect.objectContaining({ action: 'append', previous_end: '2026-11-20', current_end: '2026-11-22' }),
      }),
    ]);
  });
});
