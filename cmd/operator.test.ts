import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import type { KubernetesCluster } from '../core/cluster/kubernetes/index.ts';
import { servesIndexedJobs } from './operator.ts';

const serving = (version: { major: string; minor: string } | Error) =>
  ({
    serverVersion: async () => {
      if (version instanceof Error) throw version;
      return { ...version, gitVersion: `v${version.major}.${version.minor}.0` };
    },
  }) as unknown as KubernetesCluster;
const log = pino({ level: 'silent' });

describe('whether the API server runs Indexed Jobs', () => {
  it.each([
    [{ major: '1', minor: '20' }, false],
    [{ major: '1', minor: '21' }, false],
    [{ major: '1', minor: '22' }, true],
    // Managed clusters mark their builds with a suffix.
    [{ major: '1', minor: '31+' }, true],
    [{ major: '2', minor: '0' }, true],
  ])('%j: %s', async (version, indexed) => {
    expect(await servesIndexedJobs(serving(version), log)).toBe(indexed);
  });

  it('counts a version it cannot read as none (runs are then not split)', async () => {
    expect(await servesIndexedJobs(serving(new Error('connection refused')), log)).toBe(false);
  });
});
