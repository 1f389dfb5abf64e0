import { describe, expect, it } from 'vitest';
import {
  expectPlan,
  job,
  now,
  observe,
  preamblePlan,
  run,
  source,
  type Row,
} from '../../../test/fixtures/ingestion-runs.ts';
import { defaultRunOptions } from '../../../core/runs/options.ts';
import { preamble } from './preamble.ts';
import { runContext } from './transition.ts';

const rows: Row[] = [
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
    name: 'a cancel request ends the wait for a retry, which then never starts',
    resource: run({ phase: 'retrying', attempt: 2, retryAfter: '2026-11-22T12:01:00.000Z' }, { cancelRequested: true }),
    observed: observe(),
    want: { phase: 'cancelled', kinds: ['patchStatus', 'event'], outcome: 'done', extra: { retryAfter: undefined } },
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
  {
    name: 'a finished run plans nothing, even when its source is gone and a cancel was requested',
    resource: run({ phase: 'failed', attempt: 3 }, { cancelRequested: true }),
    observed: observe({ source: undefined }),
    want: { kinds: [], outcome: 'done' },
  },
];

describe('Ingestion planner: the preamble', () => {
  it.each(rows.map((r) => [r.name, r] as const))('%s', (_name, row) =>
    expectPlan(preamblePlan(row.resource, row.observed), row.want),
  );

  it('records why a missing source failed the run, as its error', () => {
    expect(preamblePlan(run(), observe({ source: undefined })).actions[0]).toMatchObject({
      status: { error: { type: 'SourceNotFound', message: 'DataSource sample does not exist.' } },
    });
  });

  it('lets a run that is not finished, not cancelled and has its source through to the steps, with the source', () => {
    const context = runContext(run(), observe({ job: job('running') }), now, defaultRunOptions);
    expect(preamble(context)).toEqual({ ...context, source });
  });
});
