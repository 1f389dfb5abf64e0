import { describe, expect, it } from 'vitest';
import type { DataSource } from '../../../core/resources/data-source/schema.ts';
import type { Dataset } from '../../../core/resources/dataset/schema.ts';
import type { Schedule } from '../../../core/resources/schedule/schema.ts';
import { API_VERSION } from '../../../core/resources/registry.ts';
import type { Action } from '../../runtime/actions.ts';
import { nextTick } from './cron.ts';
import type { Ingestion } from '../../../core/resources/ingestion/schema.ts';
import { FOLLOWER_RECHECK_MS, planSchedule, type ScheduleObserved } from './plan.ts';

const schedule = (status?: Schedule['status'], spec: Partial<Schedule['spec']> = {}): Schedule => ({
  apiVersion: API_VERSION,
  kind: 'Schedule',
  metadata: { name: 'daily-sample', namespace: 'default', generation: 1 } as Schedule['metadata'],
  spec: {
    datasetId: 'sample',
    cron: '30 2 * * *',
    timezone: 'UTC',
    publish: true,
    maxAttempts: 3,
    enabled: true,
    successfulRunsHistoryLimit: 10,
    failedRunsHistoryLimit: 5,
    ...spec,
  },
  ...(status ? { status: { observedGeneration: 1, ...status } } : {}),
});

const materialized = {
  metadata: { name: 'sample' },
  spec: { source: 'sample', datasetName: 'Sample', periodType: 'daily' },
  status: { currentVersion: 'v1', versions: [{ id: 'v1', path: 'datasets/sample/versions/v1' }] },
} as unknown as Dataset;
const source = (temporalDirection: 'past' | 'future' = 'past') =>
  ({ metadata: { name: 'sample' }, spec: { temporalDirection } }) as unknown as DataSource;

const observe = (extra: Partial<ScheduleObserved> = {}): ScheduleObserved => ({
  leader: true,
  readOnly: false,
  dataset: materialized,
  source: source(),
  activeRuns: [],
  scheduledRuns: [],
  ...extra,
});

const statusOf = (actions: Action[]) => {
  const write = actions.find((a) => a.kind === 'patchStatus');
  return write?.kind === 'patchStatus' ? (write.status as Record<string, unknown>) : undefined;
};
const applied = (actions: Action[]) =>
  actions.flatMap((a) => (a.kind === 'apply' ? [a.object as { metadata: { name: string }; spec: unknown }] : []));

interface Row {
  name: string;
  schedule: Schedule;
  observed: ScheduleObserved;
  now: string;
  want: { status?: Record<string, unknown>; runs: string[]; requeueMs?: number };
}

const rows: Row[] = [
  {
    name: 'a new schedule records its first tick and waits for it',
    schedule: schedule(),
    observed: observe(),
    now: '2025-03-01T01:00:00Z',
    want: {
      status: { nextCheck: '2025-03-01T02:30:00.000Z', lastOutcome: undefined },
      runs: [],
      requeueMs: 90 * 60_000,
    },
  },
  {
    name: 'a due tick submits a sync run named after the tick',
    schedule: schedule({ nextCheck: '2025-03-01T02:30:00.000Z' }),
    observed: observe(),
    now: '2025-03-01T02:30:01Z',
    want: {
      status: {
        lastOutcome: 'submitted',
        lastCheck: '2025-03-01T02:30:01.000Z',
        nextCheck: '2025-03-02T02:30:00.000Z',
        lastJobId: 'daily-sample-20250301t0230',
      },
      runs: ['daily-sample-20250301t0230'],
    },
  },
  {
    name: 'a due tick while a run writes the dataset reports already_running and starts nothing',
    schedule: schedule({ nextCheck: '2025-03-01T02:30:00.000Z', lastJobId: 'earlier' }),
    observed: observe({ activeRuns: ['sample-1234abcd'] }),
    now: '2025-03-01T02:30:01Z',
    want: { status: { lastOutcome: 'already_running', lastJobId: 'earlier' }, runs: [] },
  },
  {
    name: 'ticks missed during downtime are caught up by one check',
    schedule: schedule({ nextCheck: '2025-03-01T02:30:00.000Z', lastCheck: '2025-02-28T02:30:00.000Z' }),
    observed: observe(),
    now: '2025-03-05T10:00:00Z',
    want: {
      status: {
        lastOutcome: 'submitted',
        lastCheck: '2025-03-05T10:00:00.000Z',
        nextCheck: '2025-03-06T02:30:00.000Z',
      },
      runs: ['daily-sample-20250301t0230'],
    },
  },
  {
    name: 'a read-only instance reports read_only and starts nothing',
    schedule: schedule({ nextCheck: '2025-03-01T02:30:00.000Z' }),
    observed: observe({ readOnly: true }),
    now: '2025-03-01T02:31:00Z',
    want: { status: { lastOutcome: 'read_only', nextCheck: '2025-03-02T02:30:00.000Z' }, runs: [] },
  },
  {
    name: 'a dataset without a committed version is not_materialized',
    schedule: schedule({ nextCheck: '2025-03-01T02:30:00.000Z' }),
    observed: observe({ dataset: { ...materialized, status: {} } as Dataset }),
    now: '2025-03-01T02:31:00Z',
    want: { status: { lastOutcome: 'not_materialized' }, runs: [] },
  },
  {
    name: 'a missing dataset is not_materialized',
    schedule: schedule({ nextCheck: '2025-03-01T02:30:00.000Z' }),
    observed: observe({ dataset: undefined, source: undefined }),
    now: '2025-03-01T02:31:00Z',
    want: { status: { lastOutcome: 'not_materialized' }, runs: [] },
  },
  {
    name: 'a forecast source is refused with an error outcome',
    schedule: schedule({ nextCheck: '2025-03-01T02:30:00.000Z' }),
    observed: observe({ source: source('future') }),
    now: '2025-03-01T02:31:00Z',
    want: { status: { lastOutcome: 'error', lastMessage: expect.stringMatching(/forecast/) }, runs: [] },
  },
  {
    name: 'a spec change restarts the clock from now instead of checking a stale tick',
    schedule: {
      ...schedule({ nextCheck: '2025-03-01T02:30:00.000Z' }, { cron: '0 6 * * *' }),
      metadata: { name: 'daily-sample', namespace: 'default', generation: 2 },
    } as Schedule,
    observed: observe(),
    now: '2025-03-01T03:00:00Z',
    want: { status: { nextCheck: '2025-03-01T06:00:00.000Z', lastOutcome: undefined }, runs: [] },
  },
  {
    name: 'the cron runs in the schedule time zone',
    schedule: schedule(undefined, { timezone: 'America/New_York' }),
    observed: observe(),
    now: '2025-07-01T00:00:00Z',
    want: { status: { nextCheck: '2025-07-01T06:30:00.000Z' }, runs: [] },
  },
  {
    name: 'an unknown time zone is an error outcome, not a crash',
    schedule: schedule(undefined, { timezone: 'Mars/Olympus' }),
    observed: observe(),
    now: '2025-07-01T00:00:00Z',
    want: { status: { lastOutcome: 'error', lastMessage: expect.stringMatching(/Mars\/Olympus/) }, runs: [] },
  },
  {
    name: 'a disabled schedule has no next check',
    schedule: schedule({ nextCheck: '2025-03-01T02:30:00.000Z' }, { enabled: false }),
    observed: observe(),
    now: '2025-03-01T02:31:00Z',
    want: { status: { nextCheck: undefined, lastOutcome: undefined }, runs: [] },
  },
];

describe('Schedule planner', () => {
  it.each(rows.map((r) => [r.name, r] as const))('%s', (_name, row) => {
    const plan = planSchedule(row.schedule, row.observed, new Date(row.now));
    const want = Object.entries(row.want.status ?? {});
    expect(statusOf(plan.actions)).toMatchObject(Object.fromEntries(want.filter(([, v]) => v !== undefined)));
    for (const [key, value] of want) if (value === undefined) expect(statusOf(plan.actions)?.[key]).toBeUndefined();
    expect(applied(plan.actions).map((r) => r.metadata.name)).toEqual(row.want.runs);
    if (row.want.requeueMs !== undefined) expect(plan.outcome).toMatchObject({ ms: row.want.requeueMs });
  });

  it('submits a sync run of the dataset with the schedule publish and attempts', () => {
    const plan = planSchedule(
      schedule({ nextCheck: '2025-03-01T02:30:00.000Z' }, { publish: false, maxAttempts: 5 }),
      observe(),
      new Date('2025-03-01T02:30:05Z'),
    );
    expect(applied(plan.actions)[0]).toMatchObject({
      metadata: { labels: { 'climate.stratus.dev/dataset': 'sample', 'climate.stratus.dev/schedule': 'daily-sample' } },
      spec: { source: 'sample', datasetId: 'sample', mode: 'sync', publish: false, maxAttempts: 5 },
    });
  });

  it('plans nothing on a replica that is not the leader', () => {
    const plan = planSchedule(
      schedule({ nextCheck: '2025-03-01T02:30:00.000Z' }),
      observe({ leader: false }),
      new Date('2025-03-02T00:00:00Z'),
    );
    expect(plan).toEqual({
      actions: [],
      outcome: { kind: 'requeueAfter', ms: FOLLOWER_RECHECK_MS, reason: 'not the leader' },
    });
  });

  it.each([
    ['every minute', '* * * * *', '2025-03-01T10:00:30Z', '2025-03-01T10:01:00.000Z'],
    ['across a year end', '0 0 1 1 *', '2025-12-31T23:59:59Z', '2026-01-01T00:00:00.000Z'],
  ])('finds the next tick %s', (_name, cron, after, next) => {
    expect(nextTick({ cron, timezone: 'UTC' }, new Date(after)).toISOString()).toBe(next);
  });
});

describe('Schedule run history', () => {
  const run = (name: string, phase: string, finishedAt?: string) =>
    ({
      metadata: { name, namespace: 'default' },
      spec: { source: 'sample', datasetId: 'sample', mode: 'sync' },
      status: { phase, ...(finishedAt && { finishedAt }) },
    }) as unknown as Ingestion;
  const runs = [
    ...Array.from({ length: 12 }, (_, i) =>
      run(`ok-${i}`, 'successful', `2024-01-${String(i + 1).padStart(2, '0')}T03:00:00Z`),
    ),
    ...Array.from({ length: 6 }, (_, i) =>
      run(`failed-${i}`, 'failed', `2024-02-${String(i + 1).padStart(2, '0')}T03:00:00Z`),
    ),
    run('now', 'running'),
  ];

  it('deletes the finished runs it started past its limits, whatever its clock does', () => {
    for (const at of [new Date('2026-11-22T01:00:00Z'), new Date('2026-11-22T02:31:00Z')]) {
      const plan = planSchedule(
        schedule({ nextCheck: '2026-11-22T02:30:00Z' }),
        observe({ scheduledRuns: runs, activeRuns: ['now'] }),
        at,
      );
      const deleted = plan.actions.flatMap((a) => (a.kind === 'delete' ? [a.name] : []));
      expect(deleted.sort()).toEqual(['failed-0', 'ok-0', 'ok-1']);
      expect(plan.outcome.reason).toMatch(/; 3 runs past the history limits$/);
    }
  });

  it('leaves the history to the leader', () => {
    const plan = planSchedule(
      schedule(),
      observe({ leader: false, scheduledRuns: runs }),
      new Date('2026-11-22T01:00:00Z'),
    );
    expect(plan.actions).toEqual([]);
  });
});
