import { describe, expect, it } from 'vitest';
import { beyondHistory } from './job-history.ts';
import type { BatchJob } from './job-manifest.ts';

const ended = (name: string, created: string, outcome: 'Complete' | 'Failed'): BatchJob =>
  ({
    metadata: { name, creationTimestamp: created },
    status: { conditions: [{ type: outcome, status: 'True' }] },
  }) as BatchJob;
const names = (jobs: BatchJob[]) => jobs.map((job) => job.metadata.name);

describe('the history limits of a run', () => {
  const jobs = [
    ended('run-a1', '2026-01-01T00:00:00Z', 'Failed'),
    ended('run-a2', '2026-01-01T00:01:00Z', 'Failed'),
    ended('run-a3', '2026-01-01T00:02:00Z', 'Complete'),
    ended('run-a4', '2026-01-01T00:03:00Z', 'Complete'),
    ended('run-a5', '2026-01-01T00:04:00Z', 'Failed'),
  ];

  it.each<[string, { successful: number; failed: number }, string[]]>([
    ['the defaults keep one success and three failures', { successful: 1, failed: 3 }, ['run-a3']],
    ['limits of one keep the newest of each', { successful: 1, failed: 1 }, ['run-a3', 'run-a2', 'run-a1']],
    ['limits of zero keep none', { successful: 0, failed: 0 }, ['run-a4', 'run-a3', 'run-a5', 'run-a2', 'run-a1']],
  ])('%s', (_name, limits, deleted) => {
    expect(names(beyondHistory(jobs, limits))).toEqual(deleted);
  });

  it('orders Jobs created in the same second by their names', () => {
    const sameSecond = ['run-a8', 'run-a9'].map((name) => ended(name, '2026-01-01T00:00:00Z', 'Failed'));
    expect(names(beyondHistory(sameSecond, { successful: 1, failed: 1 }))).toEqual(['run-a8']);
  });

  it('never counts a Job that neither completed nor failed', () => {
    const unfinished = { metadata: { name: 'run-a6', creationTimestamp: '2026-01-01T00:00:00Z' } } as BatchJob;
    expect(beyondHistory([unfinished], { successful: 0, failed: 0 })).toEqual([]);
  });
});
