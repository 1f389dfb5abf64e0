import { describe, expect, it } from 'vitest';
import type { ConditionCatalogue } from '../../core/resources/conditions.ts';
import type { JobState } from '../jobs/runner.ts';
import { planRun, reportedProgress, type RunLifecycle, type RunStep, type RunStatusBase } from './run-lifecycle.ts';

/** A run kind as small as one can be: what a new kind supplies to the shared lifecycle. */
const catalogue = {
  reasons: {
    Running: { state: 'progressing', description: 'An attempt runs.' },
    Succeeded: { state: 'ready', description: 'The run succeeded.' },
  },
  events: { Succeeded: { type: 'Normal', description: 'The run succeeded.' } },
} as const satisfies ConditionCatalogue;

type Status = RunStatusBase & { phase?: string; attempt?: number };
interface Run {
  metadata: { name: string; generation?: number; deletionTimestamp?: string; finalizers?: string[] };
  spec: { cancelRequested?: boolean };
  status?: Status;
}
interface Context {
  run: Run;
  now: Date;
  job?: JobState;
}
type Step = RunStep<Context, typeof catalogue, Status>;

const now = new Date('2026-11-28T04:00:00Z');
const done = (reason: string) => ({ kind: 'done' as const, reason });
const stage =
  (reason: string, when: (context: Context) => boolean): Step =>
  (context) =>
    when(context) ? { outcome: done(reason) } : undefined;

function lifecycle(overrides: Partial<RunLifecycle<Context, Context, typeof catalogue, Status>> = {}) {
  return {
    catalogue,
    deleted: stage('deleted', () => true),
    finished: stage('finished', ({ run }) => run.status?.phase === 'succeeded'),
    cancel: stage('cancel', ({ run }) => run.spec.cancelRequested === true),
    steps: [
      stage('start', ({ job }) => !job),
      stage('follow', ({ job }) => job?.phase === 'running'),
      stage('finish', ({ job }) => job?.phase === 'succeeded'),
      stage('retry', ({ job }) => job?.phase === 'failed'),
    ],
    ...overrides,
  } satisfies RunLifecycle<Context, Context, typeof catalogue, Status>;
}

const run = (extra: Partial<Run['metadata']> = {}, status?: Status, spec: Run['spec'] = {}): Run => ({
  metadata: { name: 'r', generation: 2, ...extra },
  spec,
  ...(status && { status }),
});
const job = (phase: JobState['phase'], progress?: JobState['progress']): JobState => ({
  name: 'r-a1',
  phase,
  startedAt: '2026-11-28T03:59:00Z',
  ...(progress && { progress }),
});

describe('the run lifecycle', () => {
  it.each<[string, Run, JobState | undefined, string]>([
    [
      'a deleted run goes to the deletion, whatever else holds',
      run({ deletionTimestamp: 'x' }, { phase: 'succeeded' }),
      job('running'),
      'deleted',
    ],
    [
      'an ended run plans nothing, even when cancelled',
      run({}, { phase: 'succeeded' }, { cancelRequested: true }),
      undefined,
      'finished',
    ],
    [
      'a cancel request wins over the steps',
      run({}, { phase: 'running' }, { cancelRequested: true }),
      job('running'),
      'cancel',
    ],
    ['with no attempt known, the start step decides', run(), undefined, 'start'],
    ['a running attempt is followed', run(), job('running'), 'follow'],
    ['a succeeded attempt finishes the run', run(), job('succeeded'), 'finish'],
    ['a failed attempt is retried', run(), job('failed'), 'retry'],
  ])('%s', (_name, resource, attempt, decided) => {
    expect(planRun(lifecycle(), { run: resource, now, job: attempt }).outcome.reason).toBe(decided);
  });

  it('hands the steps what the preamble made ready, or ends the run with the preamble', () => {
    const ready = (context: Context) =>
      context.job ? { ...context, job: job('succeeded') } : { outcome: done('not ready') };
    expect(planRun(lifecycle({ ready }), { run: run(), now, job: job('running') }).outcome.reason).toBe('finish');
    expect(planRun(lifecycle({ ready }), { run: run(), now }).outcome.reason).toBe('not ready');
  });

  it('throws when no step decides: a phase without its step is a bug', () => {
    const none: Step = () => undefined;
    expect(() => planRun(lifecycle({ steps: [none, none, none, none] }), { run: run(), now })).toThrow(
      'no step decides run r',
    );
  });

  it('plans the finalizer, the actions before, the status write with its conditions, the actions after and the Event, in that order', () => {
    const start: Step = () => ({
      before: [{ kind: 'cancelJob', name: 'before' }],
      status: { set: { phase: 'succeeded' }, reason: 'Succeeded', message: 'Done.' },
      after: [{ kind: 'cancelJob', name: 'after' }],
      event: { reason: 'Succeeded', message: 'Run r succeeded.' },
      outcome: done('start'),
    });
    const plan = planRun(lifecycle({ finalizer: 'f', steps: [start, start, start, start] }), { run: run(), now });
    expect(plan.actions).toEqual([
      { kind: 'addFinalizer', name: 'f' },
      { kind: 'cancelJob', name: 'before' },
      {
        kind: 'patchStatus',
        status: {
          phase: 'succeeded',
          conditions: [
            {
              type: 'Ready',
              status: 'True',
              reason: 'Succeeded',
              message: 'Done.',
              observedGeneration: 2,
              lastTransitionTime: now.toISOString(),
            },
          ],
        },
      },
      { kind: 'cancelJob', name: 'after' },
      { kind: 'event', type: 'Normal', reason: 'Succeeded', message: 'Run r succeeded.' },
    ]);
  });

  it('adds the finalizer only to a run that lacks it and is not being deleted', () => {
    const kind = lifecycle({ finalizer: 'f' });
    expect(planRun(kind, { run: run({ finalizers: ['f'] }), now }).actions).toEqual([]);
    expect(planRun(kind, { run: run({ deletionTimestamp: 'x' }), now }).actions).toEqual([]);
    expect(planRun(lifecycle(), { run: run(), now }).actions).toEqual([]);
  });

  it('leaves out a write that changes nothing when the kind asks so, and writes one that does', () => {
    const follow: Step = () => ({
      status: { set: { phase: 'running' }, reason: 'Running', message: 'Attempt 1 running.' },
      outcome: done('follow'),
    });
    const kind = lifecycle({ writesOnlyChanges: true, steps: [follow, follow, follow, follow] });
    const first = planRun(kind, { run: run(), now });
    const written = first.actions.find((a) => a.kind === 'patchStatus');
    expect(written).toBeDefined();
    const again = run({}, (written as { status: Status }).status);
    expect(planRun(kind, { run: again, now }).actions).toEqual([]);
    expect(planRun({ ...kind, writesOnlyChanges: false }, { run: again, now }).actions).toHaveLength(1);
  });

  it("writes the kind's own status, from the decision's fields or without any", () => {
    const nextStatus = (context: Context, set: Status | undefined): Status => ({
      ...context.run.status,
      ...set,
      attempt: 7,
    });
    const plan = planRun(lifecycle({ nextStatus }), { run: run(), now });
    expect(plan.actions).toEqual([{ kind: 'patchStatus', status: { attempt: 7, conditions: undefined } }]);
  });
});

describe('reportedProgress', () => {
  it.each([
    [{ done: 1, total: 3 }, 33.3],
    [{ done: 2, total: 3, message: 'two of three' }, 66.7],
    [{ done: 0, total: 0 }, 0],
  ])('gives %j the percent %d', (progress, percent) => {
    expect(reportedProgress(job('running', progress))).toEqual({ ...progress, percent });
  });

  it('is undefined before the attempt reports', () => {
    expect(reportedProgress(job('running'))).toBeUndefined();
    expect(reportedProgress(undefined)).toBeUndefined();
  });
});
