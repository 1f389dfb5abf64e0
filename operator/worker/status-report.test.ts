import { describe, expect, it } from 'vitest';
import type { Cluster, Patch } from '../../core/cluster/port.ts';
import { ingestionKind } from '../../core/resources/ingestion/schema.ts';
import { reportPatch, statusReporter, WORKER_FIELD_MANAGER } from './status-report.ts';

/** A cluster that records status patches, failing the first `failures` of them. */
function recordingCluster(failures = 0) {
  const patches: { body: unknown; fieldManager?: string }[] = [];
  let failed = 0;
  const cluster = {
    patchStatus: async (
      _kind: unknown,
      _name: string,
      patch: Patch,
      _ns?: string,
      options?: { fieldManager?: string },
    ) => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      if (failed++ < failures) throw new Error('connection refused');
      patches.push({ body: patch.body, fieldManager: options?.fieldManager });
      return {};
    },
  } as unknown as Cluster;
  return { cluster, patches };
}

const target = { kind: ingestionKind, name: 'run', namespace: 'default', job: 'run-a1' };
const now = () => new Date('2026-01-01T00:00:00Z');

describe('the worker status report', () => {
  it('is a merge patch that removes whatever the report does not hold', () => {
    expect(reportPatch({ job: 'run-a2', at: 't', progress: { done: 1, total: 2 } })).toEqual({
      status: { worker: { job: 'run-a2', at: 't', progress: { done: 1, total: 2, message: null }, end: null } },
    });
  });

  it('writes as stratus-worker, coalescing a burst into the latest report', async () => {
    const { cluster, patches } = recordingCluster();
    const reporter = statusReporter(cluster, target, now);
    for (let done = 1; done <= 10; done++) reporter.report({ type: 'progress', done, total: 10 });
    reporter.report({ type: 'result', value: { ok: true } });
    await reporter.flushed();
    expect(patches.length).toBeLessThan(11);
    expect(patches.at(-1)).toEqual({
      fieldManager: WORKER_FIELD_MANAGER,
      body: reportPatch({
        job: 'run-a1',
        at: '2026-01-01T00:00:00.000Z',
        progress: { done: 10, total: 10 },
        end: { type: 'result', value: { ok: true } },
      }),
    });
  });

  it('retries a write that failed', async () => {
    const { cluster, patches } = recordingCluster(2);
    const reporter = statusReporter(cluster, target, now, 1);
    reporter.report({ type: 'cancelled' });
    await reporter.flushed();
    expect(patches).toHaveLength(1);
  });
});
