import { describe, expect, it } from 'vitest';
import type { Condition } from '../../../core/resources/conditions.ts';
import type { DataSource } from '../../../core/resources/data-source/schema.ts';
import { API_VERSION } from '../../../core/resources/registry.ts';
import { observeDataSource, planDataSource, type DataSourceObserved } from './plan.ts';

const now = new Date('2026-11-22T12:00:00Z');
const earlier = '2026-11-01T00:00:00Z';

const source = (status?: DataSource['status'], generation = 2): DataSource => ({
  apiVersion: API_VERSION,
  kind: 'DataSource',
  metadata: { name: 'chirps', namespace: 'default', generation } as DataSource['metadata'],
  spec: {
    datasetName: 'CHIRPS',
    itemType: 'coverage',
    license: 'other',
    temporalDirection: 'past',
    provider: { name: 'chirps' },
  },
  ...(status ? { status } : {}),
});

const ready: Condition = {
  type: 'Ready',
  status: 'True',
  reason: 'ProviderAvailable',
  message: 'Provider chirps can fetch this source.',
  observedGeneration: 2,
  lastTransitionTime: earlier,
};

interface Row {
  name: string;
  resource: DataSource;
  observed: DataSourceObserved;
  want: { ingestable: boolean; conditions: Partial<Condition>[]; events: string[] };
}

const rows: Row[] = [
  {
    name: 'a source whose provider exists becomes Ready and ingestable',
    resource: source(),
    observed: { providerAvailable: true },
    want: {
      ingestable: true,
      conditions: [
        {
          type: 'Ready',
          status: 'True',
          reason: 'ProviderAvailable',
          observedGeneration: 2,
          lastTransitionTime: now.toISOString(),
        },
      ],
      events: [],
    },
  },
  {
    name: 'a source without a provider is Stalled, not ingestable, and says so once in an event',
    resource: source(),
    observed: { providerAvailable: false },
    want: {
      ingestable: false,
      conditions: [
        { type: 'Ready', status: 'False', reason: 'ProviderUnavailable' },
        { type: 'Stalled', status: 'True', reason: 'ProviderUnavailable' },
      ],
      events: ['Warning ProviderUnavailable'],
    },
  },
  {
    name: 'an unchanged ready source keeps its transition time and records no event',
    resource: source({ ingestable: true, conditions: [ready], observedGeneration: 2 }),
    observed: { providerAvailable: true },
    want: { ingestable: true, conditions: [{ ...ready }], events: [] },
  },
  {
    name: 'a source that loses its provider drops to Stalled and records the change',
    resource: source({ ingestable: true, conditions: [ready], observedGeneration: 2 }),
    observed: { providerAvailable: false },
    want: {
      ingestable: false,
      conditions: [
        { type: 'Ready', status: 'False', lastTransitionTime: now.toISOString() },
        { type: 'Stalled', status: 'True' },
      ],
      events: ['Warning ProviderUnavailable'],
    },
  },
  {
    name: 'a stalled source whose provider appears becomes Ready and loses Stalled',
    resource: source({
      ingestable: false,
      conditions: [
        { ...ready, status: 'False', reason: 'ProviderUnavailable' },
        { ...ready, type: 'Stalled', reason: 'ProviderUnavailable' },
      ],
    }),
    observed: { providerAvailable: true },
    want: { ingestable: true, conditions: [{ type: 'Ready', status: 'True' }], events: [] },
  },
];

describe('DataSource planner', () => {
  it.each(rows.map((r) => [r.name, r] as const))('%s', (_name, row) => {
    const plan = planDataSource(row.resource, row.observed, now);
    const status = plan.actions.find((a) => a.kind === 'patchStatus');
    expect(status?.kind === 'patchStatus' && status.status.ingestable).toBe(row.want.ingestable);
    const conditions = (status?.kind === 'patchStatus' ? status.status.conditions : []) as Condition[];
    expect(conditions).toHaveLength(row.want.conditions.length);
    row.want.conditions.forEach((want, i) => expect(conditions[i]).toMatchObject(want));
    expect(
      plan.actions.filter((a) => a.kind === 'event').map((a) => (a.kind === 'event' ? `${a.type} ${a.reason}` : '')),
    ).toEqual(row.want.events);
    expect(plan.outcome.kind).toBe('done');
  });
});

describe('observeDataSource', () => {
  const withProvider = (name: string, itemType: 'coverage' | 'feature'): DataSource => {
    const base = source();
    return { ...base, spec: { ...base.spec, itemType, provider: { name } } };
  };

  it.each([
    ['a raster provider for a coverage source', 'chirps', 'coverage', true],
    ['a feature provider for a feature source', 'sample', 'feature', true],
    ['a raster-only provider for a feature source', 'chirps', 'feature', false],
    ['an unknown provider for a feature source', 'gadm', 'feature', false],
  ] as const)('finds %s: %s', (_name, provider, itemType, available) => {
    expect(observeDataSource(withProvider(provider, itemType))).toEqual({ providerAvailable: available });
  });
});
