import { describe, expect, it } from 'vitest';
import { oomKilledMessage, type WorkerPod } from './pod-termination.ts';

const pod = (name: string, reason: string, limit?: string): WorkerPod => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name },
  spec: { containers: [{ name: 'worker', ...(limit && { resources: { limits: { memory: limit } } }) }] },
  status: { containerStatuses: [{ name: 'worker', state: { terminated: { reason } } }] },
});

describe("a failed worker Job's pods", () => {
  it('name the pod killed for its memory and its limit', () => {
    expect(oomKilledMessage([pod('a', 'Error', '1Gi'), pod('b', 'OOMKilled', '64Mi')])).toBe(
      'the worker pod b was OOMKilled: its container worker exceeded its memory limit of 64Mi',
    );
  });

  it('name the OOM kill without a limit when the container had none', () => {
    expect(oomKilledMessage([pod('b', 'OOMKilled')])).toBe(
      'the worker pod b was OOMKilled: its container worker exceeded its memory limit',
    );
  });

  it('say nothing when no container was OOM-killed', () => {
    expect(oomKilledMessage([pod('a', 'Error', '1Gi')])).toBeUndefined();
    expect(oomKilledMessage([])).toBeUndefined();
  });
});
