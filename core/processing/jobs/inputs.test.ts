import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../cluster/objects.ts';
import { jobInputs } from './inputs.ts';

const dataset = (name: string, current: string, versions: { id: string; snapshot?: string }[]) =>
  ({
    apiVersion: 'climate.stratus.dev/v1alpha1',
    kind: 'Dataset',
    metadata: { name, namespace: 'default' },
    spec: { format: 'zarr' },
    status: { currentVersion: current, versions },
  }) as unknown as KubeObject;

const load = (id: string, properties?: unknown) => ({
  process_id: 'load_collection',
  arguments: { id, spatial_extent: null, temporal_extent: null, ...(properties !== undefined && { properties }) },
});
const versionIs = (y: string) => ({
  version: {
    process_graph: { eq: { process_id: 'eq', arguments: { x: { from_parameter: 'value' }, y }, result: true } },
  },
});

describe('jobInputs (the dataset versions a batch job reads)', () => {
  const rain = dataset('rain', 'v3', [{ id: 'v1', snapshot: 'SNAP1' }, { id: 'v2' }, { id: 'v3' }]);
  const heat = dataset('heat', 'h2', [{ id: 'h1' }, { id: 'h2' }]);

  it('records the served version of each dataset the graph loads', () => {
    const graph = { a: load('rain'), b: { ...load('heat'), result: true } };
    expect(jobInputs(graph, [rain, heat])).toEqual([
      { dataset: 'rain', version: 'v3' },
      { dataset: 'heat', version: 'h2' },
    ]);
  });

  it('records the retained versions a property filter names, by id or snapshot, instead of the served one', () => {
    const graph = {
      a: load('rain', versionIs('SNAP1')),
      b: load('rain', versionIs('v2')),
      c: load('heat', versionIs('h9')),
    };
    expect(jobInputs(graph, [rain, heat])).toEqual([
      { dataset: 'rain', version: 'v1' },
      { dataset: 'rain', version: 'v2' },
      // A name that is no retained version selects nothing here: load_collection then refuses the graph.
      { dataset: 'heat', version: 'h2' },
    ]);
  });

  it('follows the graphs of the workflows the job calls, and leaves out datasets no graph loads', () => {
    const workflow = {
      kind: 'Workflow',
      metadata: { name: 'w' },
      spec: { id: 'w', processGraph: { a: { ...load('heat'), result: true } } },
    } as unknown as KubeObject;
    const graph = { run: { process_id: 'w', namespace: 'user', arguments: {}, result: true } };
    expect(jobInputs(graph, [rain, heat, workflow])).toEqual([{ dataset: 'heat', version: 'h2' }]);
  });
});
