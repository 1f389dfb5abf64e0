import { describe, expect, it } from 'vitest';
import type { JobState } from '../../jobs/runner.ts';
import { job, now, observe, run, statusOf } from '../../../test/fixtures/ingestion-runs.ts';
import { defaultRunOptions } from '../../../core/runs/options.ts';
import { planIngestion, steps } from './plan.ts';
import { preamble } from './preamble.ts';
import { finish } from './finish.ts';
import { follow } from './follow.ts';
import { retry } from './retry.ts';
import { start } from './start.ts';
import { runContext, type Step } from './transition.ts';

describe('Ingestion planner: the steps together', () => {
  it.each<[string, string, JobState | undefined, Step]>([
    ['no attempt is known', 'start', undefined, start],
    ['the attempt runs', 'follow', job('running'), follow],
    ['the attempt succeeded', 'finish', job('succeeded'), finish],
    ['the attempt was cancelled', 'finish', job('cancelled'), finish],
    ['the attempt failed', 'retry', job('failed'), retry],
  ])('when %s, the %s step alone decides', (_name, _step, attempt, deciding) => {
    const context = runContext(
      run({ phase: 'running', attempt: 1 }),
      observe({ job: attempt }),
      now,
      defaultRunOptions,
    );
    const afterPreamble = preamble(context);
    if ('outcome' in afterPreamble) throw new Error('the preamble decided');
    expect(steps.filter((step) => step(afterPreamble) !== undefined)).toEqual([deciding]);
  });

  it('runs the preamble first: a cancel request wins over the progress of the running attempt', () => {
    const plan = planIngestion(
      run({ phase: 'running', attempt: 1 }, { cancelRequested: true }),
      observe({ job: job('running') }),
      now,
    );
    expect(plan.actions).toEqual([{ kind: 'cancelJob', name: 'run-a1' }]);
  });

  it('fails a run whose source is gone before any step looks at its attempt', () => {
    const plan = planIngestion(
      run({ phase: 'running', attempt: 1 }),
      observe({ source: undefined, job: job('succeeded') }),
      now,
    );
    expect(statusOf(plan.actions)).toMatchObject({ phase: 'failed', error: { type: 'SourceNotFound' } });
  });

  it('plans what the deciding step decided, with the conditions of its reason', () => {
    const plan = planIngestion(run({ phase: 'accepted', attempt: 1 }), observe({ job: job('running') }), now);
    expect(statusOf(plan.actions)?.conditions).toEqual([
      expect.objectContaining({ type: 'Ready', status: 'Unknown', reason: 'Running', observedGeneration: 1 }),
      expect.objectContaining({ type: 'Reconciling', status: 'True', reason: 'Running', observedGeneration: 1 }),
    ]);
  });
});
