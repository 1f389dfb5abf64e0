import { describe, expect, it } from 'vitest';
import type { DataSource } from '../../../core/resources/data-source/schema.ts';
import type { Ingestion } from '../../../core/resources/ingestion/schema.ts';
import { API_VERSION } from '../../../core/resources/registry.ts';
import type { JobState } from '../../jobs/runner.ts';
import type { Action } from '../../runtime/actions.ts';
import { planIngestion, retryDelaySeconds, type IngestionObserved } from './plan.ts';

const now = new Date('2026-11-22T12:00:00Z');
const source = { spec: { provider: { name: 'sample' } } } as DataSource;

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
    observed: { source, job: undefined },
    want: {
      phase: 'accepted',
      attempt: 1,
      kinds: ['patchStatus', 'startJob'],
      ready: 'Unknown',
      reason: 'Started',
      outcome: 'done',
    },
  },
  {
    name: 'a running attempt reports its progress in percent',
    resource: run({ phase: 'accepted', attempt: 1 }),
    observed: { source, job: job('running', { progress: { done: 1, total: 3, message: '2024-01-02' } }) },
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
    name: 'a succeeded attempt marks the run successful and Ready',
    resource: run({ phase: 'running', attempt: 1 }),
    observed: { source, job: job('succeeded', { result: { periods: 31 }, finishedAt: '2026-11-22T12:00:00Z' }) },
    want: {
      phase: 'successful',
      kinds: ['patchStatus', 'event'],
      ready: 'True',
      reason: 'Succeeded',
      outcome: 'done',
      extra: { result: { periods: 31 } },
    },
  },
  {
    name: 'a failed attempt with attempts left retries after the backoff',
    resource: run({ phase: 'running', attempt: 1 }),
    observed: { source, job: job('failed', { error: { type: 'Upstream', message: '503' } }) },
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
    observed: { source, job: undefined },
    want: { kinds: [], outcome: 'requeueAfter' },
  },
  {
    name: 'a retrying run starts its next attempt once retryAfter has passed',
    resource: run({ phase: 'retrying', attempt: 2, retryAfter: '2026-11-22T11:59:00.000Z' }),
    observed: { source, job: undefined },
    want: { phase: 'running', attempt: 2, kinds: ['patchStatus', 'startJob'], reason: 'Started', outcome: 'done' },
  },
  {
    name: 'the last failed attempt fails the run and stalls it',
    resource: run({ phase: 'running', attempt: 3 }),
    observed: {
      source,
      job: job('failed', { name: 'run-a3', error: { type: 'ProviderUnavailable', message: 'no provider' } }),
    },
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
    observed: { source, job: job('running') },
    want: { kinds: ['cancelJob'], outcome: 'done' },
  },
  {
    name: 'a cancel request with no attempt running cancels the run',
    resource: run({ phase: 'retrying', attempt: 2 }, { cancelRequested: true }),
    observed: { source, job: undefined },
    want: { phase: 'cancelled', kinds: ['patchStatus', 'event'], ready: 'False', reason: 'Cancelled', outcome: 'done' },
  },
  {
    name: 'an attempt that stopped on cancellation cancels the run',
    resource: run({ phase: 'running', attempt: 1 }, { cancelRequested: true }),
    observed: { source, job: job('cancelled') },
    want: { phase: 'cancelled', kinds: ['patchStatus', 'event'], reason: 'Cancelled', outcome: 'done' },
  },
  {
    name: 'a run of a source that does not exist fails at once',
    resource: run(),
    observed: { source: undefined, job: undefined },
    want: { phase: 'failed', kinds: ['patchStatus'], ready: 'False', reason: 'SourceNotFound', outcome: 'done' },
  },
  {
    name: 'a finished run plans nothing',
    resource: run({ phase: 'successful', attempt: 1 }),
    observed: { source, job: job('succeeded') },
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
        input: { provider: 'sample' },
      });
  });

  it('backs off min(240, 60 * 2^(n-1)) seconds after attempt n', () => {
    const options = { retryBaseSeconds: 60, retryCapSeconds: 240 };
    expect([1, 2, 3, 4, 5].map((n) => retryDelaySeconds(n, options))).toEqual([60, 120, 240, 240, 240]);
  });
});
