import { describe, expect, it } from 'vitest';
import type { WorkerReport } from '../../worker/protocol.ts';
import type { JobState } from '../runner.ts';
import type { BatchJob, BatchJobStatus } from './job-manifest.ts';
import { jobStateOf, type AttemptObservation } from './job-state.ts';

const jobWith = (status: BatchJobStatus): BatchJob => ({
  apiVersion: 'batch/v1',
  kind: 'Job',
  metadata: { name: 'r-a1', creationTimestamp: '2026-01-01T00:00:00Z' },
  status,
});
const started = { startTime: '2026-01-01T00:00:01Z', active: 1 };
const report = (more: Partial<WorkerReport>): WorkerReport => ({ job: 'r-a1', at: '2026-01-01T00:01:00Z', ...more });
const failedCondition = (reason: string, message: string) => ({
  ...started,
  failed: 1,
  conditions: [{ type: 'Failed', status: 'True', reason, message, lastTransitionTime: '2026-01-01T00:02:00Z' }],
});

const cases: [string, Partial<AttemptObservation>, Partial<JobState>][] = [
  [
    'a Job not created yet is running since it was asked for',
    {},
    { phase: 'running', startedAt: '2026-01-01T00:00:00.5Z' },
  ],
  [
    'a started Job is running since its start time',
    { job: jobWith(started) },
    { phase: 'running', startedAt: started.startTime },
  ],
  [
    'progress comes from the report, without a message it did not have',
    { job: jobWith(started), report: report({ progress: { done: 2, total: 5 } }) },
    { phase: 'running', progress: { done: 2, total: 5 } },
  ],
  [
    'a result ends it as succeeded, at the report time, keeping the last progress',
    {
      job: jobWith(started),
      report: report({ progress: { done: 5, total: 5, message: 'x' }, end: { type: 'result', value: { v: 1 } } }),
    },
    {
      phase: 'succeeded',
      result: { v: 1 },
      finishedAt: '2026-01-01T00:01:00Z',
      progress: { done: 5, total: 5, message: 'x' },
    },
  ],
  [
    'a reported error fails it with the error type of the task',
    {
      job: jobWith(started),
      report: report({ end: { type: 'error', errorType: 'UpstreamUnavailable', message: 'm' } }),
    },
    { phase: 'failed', error: { type: 'UpstreamUnavailable', message: 'm' } },
  ],
  ['a reported cancel cancels it', { report: report({ end: { type: 'cancelled' } }) }, { phase: 'cancelled' }],
  [
    'a deadline exceeded without a report fails it as DeadlineExceeded',
    { job: jobWith(failedCondition('DeadlineExceeded', 'Job was active longer than specified deadline')) },
    {
      phase: 'failed',
      finishedAt: '2026-01-01T00:02:00Z',
      error: { type: 'DeadlineExceeded', message: 'Job was active longer than specified deadline' },
    },
  ],
  [
    'a pod that failed without a report is a crashed worker',
    { job: jobWith(failedCondition('BackoffLimitExceeded', 'Job has reached the specified backoff limit')) },
    { phase: 'failed', error: { type: 'WorkerCrashed', message: 'Job has reached the specified backoff limit' } },
  ],
  [
    'a crashed worker whose pods said why fails with their word',
    {
      job: jobWith(failedCondition('BackoffLimitExceeded', 'Job has reached the specified backoff limit')),
      podEnd: 'the worker pod p was OOMKilled',
    },
    { phase: 'failed', error: { type: 'WorkerCrashed', message: 'the worker pod p was OOMKilled' } },
  ],
  ['a cancelled attempt whose Job is gone is cancelled', { cancelRequested: true }, { phase: 'cancelled' }],
  [
    'a cancelled attempt whose Job still runs is running until the worker stops',
    { cancelRequested: true, job: jobWith(started) },
    { phase: 'running' },
  ],
  [
    'a Job that completed before its report arrived is still running (the runner re-reads the run)',
    { job: jobWith({ ...started, succeeded: 1, conditions: [{ type: 'Complete', status: 'True' }] }) },
    { phase: 'running' },
  ],
];

describe('the state of an attempt from its Job and its worker report', () => {
  it.each(cases)('%s', (_, observed, expected) => {
    const state = jobStateOf({
      name: 'r-a1',
      requestedAt: '2026-01-01T00:00:00.5Z',
      job: undefined,
      report: undefined,
      cancelRequested: false,
      ...observed,
    });
    expect(state).toMatchObject({ name: 'r-a1', ...expected });
    if (!('progress' in expected)) expect(state.progress).toBeUndefined();
    if (expected.phase === 'running') expect(state.finishedAt).toBeUndefined();
  });
});
