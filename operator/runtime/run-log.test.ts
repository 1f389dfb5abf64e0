import { Writable } from 'node:stream';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../core/cluster/objects.ts';
import type { Action } from './actions.ts';
import { logRunPlan } from './run-log.ts';

function capture() {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(JSON.parse(String(chunk)) as Record<string, unknown>);
      done();
    },
  });
  return { log: pino({ level: 'debug' }, stream), lines };
}

const run = (phase?: string): KubeObject => ({
  apiVersion: 'climate.stratus.dev/v1alpha1',
  kind: 'Ingestion',
  metadata: { name: 'r', namespace: 'default' },
  status: phase ? { phase, attempt: 1 } : undefined,
});

describe('what the operator logs of a run', () => {
  it.each<[string, string | undefined, Action[], { level: number; msg: string; [key: string]: unknown }[]]>([
    [
      'a first attempt: the phase it enters and the worker started',
      undefined,
      [
        { kind: 'patchStatus', status: { phase: 'accepted', attempt: 1 } },
        { kind: 'startJob', job: { name: 'r-a1', task: 'sync', input: {}, parts: { count: 3, parallelism: 2 } } },
      ],
      [
        { level: 30, msg: 'run accepted', phase: 'accepted', attempt: 1 },
        { level: 30, msg: 'worker attempt started', job: 'r-a1', task: 'sync', parts: 3 },
      ],
    ],
    [
      'a failed attempt to be retried: a warning, with its error and the event',
      'running',
      [
        { kind: 'patchStatus', status: { phase: 'retrying', attempt: 1, error: { type: 'Boom', message: 'no' } } },
        { kind: 'event', type: 'Warning', reason: 'Boom', message: 'Attempt 1 failed: no' },
      ],
      [
        { level: 40, msg: 'run retrying', previous: 'running', error: { type: 'Boom', message: 'no' } },
        { level: 40, msg: 'Attempt 1 failed: no', reason: 'Boom' },
      ],
    ],
    [
      'a failure: an error',
      'running',
      [{ kind: 'patchStatus', status: { phase: 'failed' } }],
      [{ level: 50, msg: 'run failed' }],
    ],
    [
      'a cancellation',
      'running',
      [{ kind: 'cancelJob', name: 'r-a2' }],
      [{ level: 30, msg: 'worker attempt asked to stop', job: 'r-a2' }],
    ],
    [
      'progress only: nothing',
      'running',
      [{ kind: 'patchStatus', status: { phase: 'running', progress: { done: 2, total: 5 } } }],
      [],
    ],
  ])('%s', (_, phase, actions, want) => {
    const { log, lines } = capture();
    logRunPlan(log, run(phase), { actions, outcome: { kind: 'done', reason: 'test' } });
    expect(lines).toEqual(want.map((w) => expect.objectContaining(w)));
  });
});
