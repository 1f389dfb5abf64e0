import { describe, expect, it } from 'vitest';
import { expectPlan, job, observe, run, stepPlan, type Row } from '../../../test/fixtures/ingestion-runs.ts';
import { follow, progressOf } from './follow.ts';

const rows: Row[] = [
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
    name: 'a running attempt that has not reported keeps the progress and the start of the run',
    resource: run({
      phase: 'running',
      attempt: 2,
      startedAt: '2026-11-22T11:00:00Z',
      progress: { done: 4, total: 8, percent: 50 },
    }),
    observed: observe({ job: job('running', { name: 'run-a2' }) }),
    want: {
      phase: 'running',
      kinds: ['patchStatus'],
      reason: 'Running',
      outcome: 'done',
      extra: { startedAt: '2026-11-22T11:00:00Z', progress: { done: 4, total: 8, percent: 50 } },
    },
  },
];

describe('Ingestion planner: the follow step', () => {
  it.each(rows.map((r) => [r.name, r] as const))('%s', (_name, row) =>
    expectPlan(stepPlan(follow, row.resource, row.observed), row.want),
  );

  it.each<[string, { done: number; total: number }, number]>([
    ['a third', { done: 1, total: 3 }, 33.3],
    ['all of it', { done: 7, total: 7 }, 100],
    ['nothing yet of an unknown total', { done: 0, total: 0 }, 0],
  ])('counts %s as its percent, to a tenth', (_name, progress, percent) => {
    expect(progressOf(job('running', { progress }), {})).toEqual({ ...progress, percent });
  });
});
