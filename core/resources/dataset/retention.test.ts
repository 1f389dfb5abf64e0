import { describe, expect, it } from 'vitest';
import type { Delivery } from '../delivery/schema.ts';
import type { ProcessingJob } from '../processing-job/schema.ts';
import { DEFAULT_VERSION_GRACE_SECONDS, pinsOf, retainVersions, versionPins, type VersionPin } from './retention.ts';
import type { Dataset, DatasetVersion } from './schema.ts';

const now = new Date('2026-11-28T12:00:00Z');
const GRACE_MS = DEFAULT_VERSION_GRACE_SECONDS * 1000;
const ago = (ms: number) => new Date(now.getTime() - ms).toISOString();

const version = (id: string, supersededAt?: string): DatasetVersion => ({
  id,
  createdAt: '2026-11-01T00:00:00Z',
  format: 'zarr',
  coverage: { spatial: { xmin: 0, ymin: 0, xmax: 1, ymax: 1 }, temporal: { start: '2024-01-01', end: '2024-01-02' } },
  path: `datasets/d/versions/${id}`,
  ...(supersededAt && { supersededAt }),
});

const dataset = (versions: DatasetVersion[], spec: Partial<Dataset['spec']> = {}, current = versions.at(-1)?.id) =>
  ({
    metadata: { name: 'd', namespace: 'default' },
    spec: { versionHistoryLimit: 2, ...spec },
    status: { currentVersion: current, versions },
  }) as Dataset;

const job = (name: string, phase: string, inputs = [{ dataset: 'd', version: 'v1' }]) =>
  ({ kind: 'ProcessingJob', metadata: { name }, spec: {}, status: { phase, inputs } }) as unknown as ProcessingJob;
const delivery = (name: string, jobId: string, phase?: string) =>
  ({ kind: 'Delivery', metadata: { name }, spec: { jobId }, status: phase && { phase } }) as unknown as Delivery;

const ids = (versions: DatasetVersion[]) => versions.map((v) => v.id);
const old = ago(GRACE_MS + 1);

describe('retainVersions', () => {
  it.each([
    ['keeps the newest versionHistoryLimit, expiring the older ones', [], {}, ['v3', 'v4'], ['v1', 'v2']],
    [
      'keeps a pinned version past the limit',
      [{ version: 'v1', holder: 'ProcessingJob j' }],
      {},
      ['v1', 'v3', 'v4'],
      ['v2'],
    ],
    [
      'lets a version asked to be removed go before the limit would',
      [],
      { removeVersions: ['v3'] },
      ['v2', 'v4'],
      ['v1', 'v3'],
    ],
  ] as [string, VersionPin[], Partial<Dataset['spec']>, string[], string[]][])(
    '%s',
    (_name, pins, spec, kept, expired) => {
      const retention = retainVersions(
        dataset([version('v1', old), version('v2', old), version('v3', old), version('v4')], spec),
        pins,
        now,
      );
      expect([ids(retention.kept), ids(retention.expired)]).toEqual([kept, expired]);
      expect(retention.nextExpiry).toBeUndefined();
    },
  );

  it('keeps a version within its grace period and says when that ends', () => {
    const recent = ago(60_000);
    const retention = retainVersions(
      dataset([version('v1', recent), version('v2', old), version('v3', old), version('v4')]),
      [],
      now,
    );
    expect([ids(retention.kept), ids(retention.expired)]).toEqual([['v1', 'v3', 'v4'], ['v2']]);
    expect(retention.nextExpiry).toEqual(new Date(Date.parse(recent) + GRACE_MS));
  });

  it('never expires the served version, even asked to remove it or past the limit', () => {
    const versions = [version('v1'), version('v2', old), version('v3', old)];
    const retention = retainVersions(
      dataset(versions, { versionHistoryLimit: 1, removeVersions: ['v1'] }, 'v1'),
      [],
      now,
    );
    expect([ids(retention.kept), ids(retention.expired)]).toEqual([['v1', 'v3'], ['v2']]);
  });
});

describe('versionPins', () => {
  it('pins the inputs of queued and running jobs, and of jobs an unfinished delivery sends', () => {
    const jobs = [
      job('running', 'running'),
      job('queued', 'queued', [
        { dataset: 'd', version: 'v2' },
        { dataset: 'other', version: 'v9' },
      ]),
      job('finished', 'finished', [{ dataset: 'd', version: 'v3' }]),
      job('failed', 'error', [{ dataset: 'd', version: 'v4' }]),
    ];
    const deliveries = [
      delivery('sending', 'finished', 'running'),
      delivery('new', 'failed'),
      delivery('sent', 'finished', 'successful'),
    ];
    const pins = versionPins('d', jobs, deliveries);
    expect(pins).toEqual([
      { version: 'v1', holder: 'ProcessingJob running' },
      { version: 'v2', holder: 'ProcessingJob queued' },
      { version: 'v3', holder: 'Delivery sending' },
      { version: 'v4', holder: 'Delivery new' },
    ]);
    expect(pinsOf(pins, 'v3')).toEqual(['Delivery sending']);
    expect(pinsOf(pins, 'v5')).toEqual([]);
  });
});
