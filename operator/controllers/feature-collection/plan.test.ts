import { describe, expect, it } from 'vitest';
import type { FeatureCollection } from '../../../core/resources/feature-collection/schema.ts';
import { planFeatureCollection, type FeatureCollectionObserved } from './plan.ts';

const now = new Date('2026-01-10T00:00:00Z');

function collection(status?: FeatureCollection['status'], source: string | undefined = 'districts'): FeatureCollection {
  return {
    apiVersion: 'climate.stratus.dev/v1alpha1',
    kind: 'FeatureCollection',
    metadata: { name: 'districts', namespace: 'default', generation: 3 },
    spec: { name: 'Districts', idProperty: 'code', license: 'other', publish: true, ...(source && { source }) },
    ...(status && { status }),
  } as FeatureCollection;
}

const stored = { path: 'features/districts/versions/v1/data.parquet', featureCount: 12 };

const conditionsOf = (resource: FeatureCollection, observed: FeatureCollectionObserved) => {
  const plan = planFeatureCollection(resource, observed, now);
  const action = plan.actions[0] as {
    kind: string;
    status: { conditions: { type: string; status: string; reason: string; message: string }[] };
  };
  expect(action.kind).toBe('patchStatus');
  return Object.fromEntries(action.status.conditions.map((c) => [c.type, c]));
};

describe('planFeatureCollection', () => {
  it.each([
    {
      name: 'a stored file is Ready',
      resource: collection(stored),
      observed: { sourceExists: true, latestRun: { name: 'r1', finished: true, phase: 'successful' } },
      ready: 'True',
      reason: 'Stored',
      message: /^Serving 12 features from features\/districts\/versions\/v1\/data\.parquet$/,
    },
    {
      name: 'a stored file stays Ready when the next refresh failed, and says so',
      resource: collection(stored),
      observed: {
        sourceExists: true,
        latestRun: {
          name: 'r2',
          finished: true,
          phase: 'failed',
          error: { type: 'UpstreamUnavailable', message: 'HTTP 500' },
        },
      },
      ready: 'True',
      reason: 'Stored',
      message: /the last refresh \(r2\) failed: HTTP 500$/,
    },
    {
      name: 'a first refresh running is Reconciling',
      resource: collection(),
      observed: { sourceExists: true, latestRun: { name: 'r1', finished: false, phase: 'running' } },
      ready: 'Unknown',
      reason: 'Refreshing',
      message: /^Refresh r1 is running\.$/,
    },
    {
      name: 'a failed first refresh is Stalled',
      resource: collection(),
      observed: {
        sourceExists: true,
        latestRun: {
          name: 'r1',
          finished: true,
          phase: 'failed',
          error: { type: 'InvalidFeatures', message: 'duplicate id 7' },
        },
      },
      ready: 'False',
      reason: 'RefreshFailed',
      message: /^Refresh r1 failed \(InvalidFeatures\): duplicate id 7$/,
    },
    {
      name: 'a missing template is Stalled',
      resource: collection(),
      observed: { sourceExists: false, latestRun: undefined },
      ready: 'False',
      reason: 'SourceNotFound',
      message: /^DataSource districts does not exist\.$/,
    },
    {
      name: 'nothing stored and no run awaits a refresh',
      resource: collection(undefined, undefined),
      observed: { sourceExists: true, latestRun: undefined },
      ready: 'Unknown',
      reason: 'AwaitingRefresh',
      message: /POST \/features\/districts\/refresh/,
    },
  ])('$name', ({ resource, observed, ready, reason, message }) => {
    const conditions = conditionsOf(resource, observed as FeatureCollectionObserved);
    expect(conditions.Ready).toMatchObject({ status: ready, reason, observedGeneration: 3 });
    expect(conditions.Ready!.message).toMatch(message);
    expect('Stalled' in conditions).toBe(ready === 'False');
    expect('Reconciling' in conditions).toBe(ready === 'Unknown');
  });
});
