import { describe, expect, it } from 'vitest';
import { expectPlan, job, observe, run, stepPlan, type Row } from '../../../test/fixtures/ingestion-runs.ts';
import { retryDelaySeconds } from '../../../core/runs/backoff.ts';
import { retry } from './retry.ts';

const rows: Row[] = [
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
    name: 'a second failed attempt waits twice as long',
    resource: run({ phase: 'running', attempt: 2 }),
    observed: observe({ job: job('failed', { name: 'run-a2', error: { type: 'WorkerCrashed', message: 'killed' } }) }),
    want: {
      phase: 'retrying',
      attempt: 3,
      kinds: ['patchStatus', 'event'],
      reason: 'Retrying',
      outcome: 'requeueAfter',
      extra: { retryAfter: '2026-11-22T12:02:00.000Z', error: { type: 'WorkerCrashed', message: 'killed' } },
    },
  },
  {
    name: 'an attempt that failed without an error counts as Unknown',
    resource: run({ phase: 'running', attempt: 3 }),
    observed: observe({ job: job('failed', { name: 'run-a3' }) }),
    want: {
      phase: 'failed',
      kinds: ['patchStatus', 'event'],
      reason: 'Unknown',
      outcome: 'done',
      extra: { error: { type: 'Unknown', message: 'the attempt failed' } },
    },
  },
];

describe('Ingestion planner: the retry step', () => {
  it.each(rows.map((r) => [r.name, r] as const))('%s', (_name, row) =>
    expectPlan(stepPlan(retry, row.resource, row.observed), row.want),
  );

  it('records the failed attempt as a Warning event: AttemptFailed while retrying, Failed at the end', () => {
    const failed = job('failed', { error: { type: 'UpstreamUnavailable', message: '503' } });
    expect(stepPlan(retry, run({ phase: 'running', attempt: 1 }), observe({ job: failed }))!.actions[1]).toEqual({
      kind: 'event',
      type: 'Warning',
      reason: 'AttemptFailed',
      message: 'Attempt 1 failed: 503',
    });
    expect(stepPlan(retry, run({ phase: 'running', attempt: 3 }), observe({ job: failed }))!.actions[1]).toEqual({
      kind: 'event',
      type: 'Warning',
      reason: 'Failed',
      message: 'Run run failed: 503',
    });
  });

  it('backs off min(240, 60 * 2^(n-1)) seconds after attempt n', () => {
    const options = { retryBaseSeconds: 60, retryCapSeconds: 240 };
    expect([1, 2, 3, 4, 5].map((n) => retryDelaySeconds(n, options))).toEqual([60, 120, 240, 240, 240]);
  });
});
