import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../cluster/objects.ts';
import { jobParts, savesOneZarr } from './split.ts';

const dataset = (name: string, periodType: string, start: string, end: string) =>
  ({
    apiVersion: 'climate.stratus.dev/v1alpha1',
    kind: 'Dataset',
    metadata: { name },
    spec: { periodType },
    status: { extent: { temporal: { start, end } } },
  }) as unknown as KubeObject;

const graph = (temporal: unknown, format = 'ZARR', extra: Record<string, unknown> = {}) => ({
  process_graph: {
    load: {
      process_id: 'load_collection',
      arguments: { id: 'daily', spatial_extent: null, temporal_extent: temporal },
    },
    save: { process_id: 'save_result', arguments: { data: { from_node: 'load' }, format }, result: true },
    ...extra,
  },
});

const options = { periodsPerPart: 30, maxParts: 4, parallelism: 2 };
const resources = [dataset('daily', 'daily', '2024-01-01', '2024-12-31')];

describe('jobParts', () => {
  it('splits a Zarr job by the time steps it loads, within the temporal extent (end exclusive)', () => {
    expect(jobParts(graph(['2024-01-01', '2024-03-01']), resources, options)).toEqual({ count: 2, parallelism: 2 });
    // 30 days (the end is exclusive) fit one part; 31 do not.
    expect(jobParts(graph(['2024-01-01', '2024-01-31']), resources, options)).toBeUndefined();
    expect(jobParts(graph(['2024-01-01', '2024-02-01']), resources, options)).toEqual({ count: 2, parallelism: 2 });
    // The whole extent when the node names none, at most maxParts.
    expect(jobParts(graph(null), resources, options)).toEqual({ count: 4, parallelism: 2 });
    // An extent past the dataset's counts only the dataset's steps.
    expect(jobParts(graph(['2024-12-01', '2025-06-01']), resources, options)).toEqual({ count: 2, parallelism: 2 });
    expect(jobParts(graph(['2025-01-01', '2025-06-01']), resources, options)).toBeUndefined();
  });

  it('does not split other formats, several results, unknown datasets or when splitting is off', () => {
    expect(jobParts(graph(null, 'netCDF'), resources, options)).toBeUndefined();
    const twice = graph(null, 'Zarr', {
      again: { process_id: 'save_result', arguments: { data: { from_node: 'load' }, format: 'Zarr' } },
    });
    expect(savesOneZarr(twice.process_graph)).toBe(false);
    expect(jobParts(twice, resources, options)).toBeUndefined();
    expect(jobParts(graph(null), [], options)).toBeUndefined();
    expect(jobParts(graph(null), resources, undefined)).toBeUndefined();
    expect(jobParts(graph(null), resources, { ...options, maxParts: 1 })).toBeUndefined();
  });
});
