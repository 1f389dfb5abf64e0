import { describe, expect, it } from 'vitest';
import type { DataSource } from '../../../core/resources/data-source/schema.ts';
import type { IngestionObserved } from './observed.ts';
import {
  dataset,
  expectPlan,
  observe,
  run,
  source,
  startJobOf,
  statusOf,
  stepPlan,
  syncRun,
  version,
  type Row,
} from '../../../test/fixtures/ingestion-runs.ts';
import { start } from './start.ts';

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
    name: 'a dataset id that is not a safe name fails the run before any job starts',
    resource: run(undefined, { datasetId: '../other' }),
    observed: observe(),
    want: {
      phase: 'failed',
      kinds: ['patchStatus', 'event'],
      reason: 'InvalidRequest',
      outcome: 'done',
      extra: { error: { type: 'InvalidRequest', message: '"../other" is not a valid dataset id.' } },
    },
  },
  {
    name: 'a source that declares no period type fails the run before any job starts',
    resource: run(),
    observed: observe({ source: { ...source, spec: { ...source.spec, periodType: undefined } } as DataSource }),
    want: {
      phase: 'failed',
      kinds: ['patchStatus', 'event'],
      reason: 'InvalidRequest',
      outcome: 'done',
      extra: { error: { type: 'InvalidRequest', message: 'DataSource sample declares no period type.' } },
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
];

describe('Ingestion planner: the start step', () => {
  it.each(rows.map((r) => [r.name, r] as const))('%s', (_name, row) =>
    expectPlan(stepPlan(start, row.resource, row.observed), row.want),
  );

  it('waits out the rest of the backoff, to the millisecond', () => {
    const plan = stepPlan(
      start,
      run({ phase: 'retrying', attempt: 2, retryAfter: '2026-11-22T12:01:00.000Z' }),
      observe(),
    );
    expect(plan?.outcome).toEqual({ kind: 'requeueAfter', ms: 60_000, reason: 'waiting to retry' });
  });

  it('splits a long range into parts that agree on the moment their version is named after', () => {
    const plan = stepPlan(start, run(undefined, { start: '2020-01-01', end: '2024-12-31' }), observe());
    const started = plan?.actions.find((a) => a.kind === 'startJob');
    expect(started).toMatchObject({ job: { parts: { count: 5, parallelism: 4 } } });
    expect(startJobOf(plan!.actions)).toMatchObject({ createdAt: '2026-11-22T12:00:00.000Z' });
  });
});

describe('Ingestion planner: the start step of ingestions into a stored dataset', () => {
  // The current version covers all of 2024; the request that made it asked for three days only (provenance).
  const year = version('v2', '2024-01-01', '2024-12-31');
  const stored = dataset([{ ...year, requestScope: { ...year.requestScope, start: '2024-01-01', end: '2024-01-03' } }]);

  it('reuses the current version for periods inside its coverage, whatever request made it', () => {
    const plan = stepPlan(
      start,
      run(undefined, { start: '2024-03-01', end: '2024-03-31' }),
      observe({ dataset: stored }),
    );
    expect(plan?.actions.some((a) => a.kind === 'startJob')).toBe(false);
    expect(statusOf(plan!.actions)).toMatchObject({ result: { reused: true, version: 'v2' } });
  });

  it.each([
    [
      'an overwrite inside the coverage',
      { start: '2024-01-01', end: '2024-01-03', overwrite: true },
      '2024-01-01',
      '2024-01-03',
    ],
    ['a range past the end, filling the gap', { start: '2025-01-10', end: '2025-01-12' }, '2025-01-01', '2025-01-12'],
    [
      'a range before the start, filling the gap',
      { start: '2023-12-01', end: '2023-12-02' },
      '2023-12-01',
      '2023-12-31',
    ],
  ])('splices %s into the current version', (_name, spec, fetchStart, fetchEnd) => {
    const plan = stepPlan(start, run(undefined, spec), observe({ dataset: stored }))!;
    expect(startJobOf(plan.actions)).toMatchObject({
      start: fetchStart,
      end: fetchEnd,
      base: 'datasets/sample/versions/v2',
    });
  });

  it('replaces the dataset with the requested periods only when the run asks to', () => {
    const spec = { start: '2024-01-01', end: '2024-01-03', replace: true };
    const plan = stepPlan(start, run(undefined, spec), observe({ dataset: stored }))!;
    const input = startJobOf(plan.actions);
    expect(input).toMatchObject({ start: '2024-01-01', end: '2024-01-03' });
    expect(input).not.toHaveProperty('base');
  });
});

describe('Ingestion planner: the start step of sync runs', () => {
  // The sample source is available through today (2026-11-22); the store holds data through 2026-11-20.
  const stored = dataset([version('v1', '2026-11-01', '2026-11-20')]);

  it('starts an attempt that appends from the period after the committed end, on top of the current version', () => {
    const plan = stepPlan(
      start,
      syncRun(),
      observe({ dataset: stored, committed: { start: '2026-11-01', end: '2026-11-20' } }),
    )!;
    expect(plan.actions.map((a) => a.kind)).toEqual(['patchStatus', 'startJob']);
    expect(startJobOf(plan.actions)).toMatchObject({
      start: '2026-11-21',
      end: '2026-11-22',
      base: 'datasets/sample/versions/v1',
    });
  });

  it('plans from the store, not from the status, when the two disagree', () => {
    const plan = stepPlan(
      start,
      syncRun({ phase: 'retrying', attempt: 2, retryAfter: '2026-11-22T11:00:00Z' }),
      observe({ dataset: stored, committed: { start: '2026-11-01', end: '2026-11-21' } }),
    )!;
    expect(startJobOf(plan.actions)).toMatchObject({ start: '2026-11-22', end: '2026-11-22', attempt: 2 });
  });

  it('finishes an up-to-date sync without a job and without a dataset.updated event', () => {
    const plan = stepPlan(
      start,
      syncRun(),
      observe({ dataset: stored, committed: { start: '2026-11-01', end: '2026-11-22' } }),
    )!;
    expect(plan.actions.map((a) => a.kind)).toEqual(['patchStatus']);
    expect(statusOf(plan.actions)).toMatchObject({
      phase: 'successful',
      result: { datasetId: 'sample', upToDate: true, syncDetail: { action: 'no_op', reason: 'up_to_date' } },
    });
    expect(statusOf(plan.actions)!.conditions[0]?.reason).toBe('UpToDate');
    expect(statusOf(plan.actions)!.events).toBeUndefined();
  });

  it.each<[string, Partial<IngestionObserved>, string]>([
    ['a dataset never ingested', { dataset: undefined }, 'NotSyncable'],
    ['a store that cannot be read', { dataset: stored, committed: { error: 'gone' } }, 'StoreUnreadable'],
    ['a dataset with no committed version', { dataset: dataset([]) }, 'NotSyncable'],
  ])('fails a sync of %s without starting a job', (_name, observed, type) => {
    const plan = stepPlan(start, syncRun(), observe(observed))!;
    expect(plan.actions.map((a) => a.kind)).toEqual(['patchStatus', 'event']);
    expect(statusOf(plan.actions)).toMatchObject({ phase: 'failed', error: { type } });
  });

  it('waits for an earlier writer before reading the store', () => {
    const plan = stepPlan(
      start,
      syncRun(),
      observe({ dataset: stored, committed: { error: 'mid-write' }, earlierWriters: ['other'] }),
    )!;
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
    const plan = stepPlan(
      start,
      syncRun(),
      observe({ source: forecastSource, dataset: stored, committed: { start: '2026-11-20', end: '2026-11-23' } }),
    )!;
    const input = startJobOf(plan.actions);
    expect(input).toMatchObject({ start: '2026-11-22', end: '2026-11-24' });
    expect(input?.base).toBeUndefined();
  });
});
