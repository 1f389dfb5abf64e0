import { describe, expect, it } from 'vitest';
import type { PartReport } from '../worker/protocol.ts';
import { combinedReport } from './parts.ts';

const part = (at: string, report: Partial<PartReport>): PartReport => ({ job: 'run-a1', at, count: 3, ...report });

describe('combinedReport', () => {
  it('sums the parts’ progress against the attempt’s total and keeps the latest message', () => {
    const parts = new Map([
      [0, part('2026-01-01T00:00:02Z', { progress: { done: 4, total: 30, message: 'part 1: stored 4' } })],
      [2, part('2026-01-01T00:00:03Z', { progress: { done: 2, total: 30, message: 'part 3: stored 2' } })],
    ]);
    expect(combinedReport('run-a1', parts)).toEqual({
      job: 'run-a1',
      at: '2026-01-01T00:00:03Z',
      progress: { done: 6, total: 30, message: 'part 3: stored 2' },
    });
  });

  it('succeeds only once every part succeeded, with the one result a part returned', () => {
    const value = { datasetId: 'd', version: { id: 'v' } };
    const parts = new Map([
      [0, part('t1', { end: { type: 'result', value: null } })],
      [1, part('t2', { end: { type: 'result', value } })],
    ]);
    expect(combinedReport('run-a1', parts)?.end).toBeUndefined();
    parts.set(2, part('t3', { progress: { done: 10, total: 30 } }));
    expect(combinedReport('run-a1', parts)?.end).toBeUndefined();
    parts.set(2, part('t4', { end: { type: 'result', value: null } }));
    expect(combinedReport('run-a1', parts)?.end).toEqual({ type: 'result', value });
  });

  it('fails with the first failed part, even while others run, and a failure wins over a cancellation', () => {
    const parts = new Map([
      [0, part('t1', { progress: { done: 1, total: 30 } })],
      [1, part('t2', { end: { type: 'cancelled' } })],
    ]);
    expect(combinedReport('run-a1', parts)?.end).toEqual({ type: 'cancelled' });
    parts.set(2, part('t3', { end: { type: 'error', errorType: 'UpstreamUnavailable', message: 'upstream 503' } }));
    expect(combinedReport('run-a1', parts)?.end).toEqual({
      type: 'error',
      errorType: 'UpstreamUnavailable',
      message: 'upstream 503',
    });
  });

  it('says nothing of an attempt no part reported yet', () => {
    expect(combinedReport('run-a1', new Map())).toBeUndefined();
  });
});
