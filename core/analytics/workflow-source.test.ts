import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../cluster/objects.ts';
import { pinnedResources } from '../processing/jobs/pinned.ts';
import type { Workflow } from '../resources/workflow/schema.ts';
import { loadedDatasets, workflowInputs, workflowSourceProblem, workflowSourceVersion } from './workflow-source.ts';

const dataset = (name: string, currentVersion: string) =>
  ({
    apiVersion: 'climate.stratus.dev/v1alpha1',
    kind: 'Dataset',
    metadata: { name, namespace: 'default' },
    spec: { source: `${name}-source` },
    status: { currentVersion },
  }) as KubeObject;

/** A workflow that loads the collection its `collection` parameter names, with a default or without. */
const loading = (fallback?: string) =>
  ({
    apiVersion: 'climate.stratus.dev/v1alpha1',
    kind: 'Workflow',
    metadata: { name: 'anomaly', namespace: 'default', generation: 2 },
    spec: {
      id: 'anomaly',
      parameters: [
        {
          name: 'collection',
          description: 'The dataset.',
          schema: { type: 'string' },
          ...(fallback !== undefined && { optional: true, default: fallback }),
        },
      ],
      processGraph: {
        load: {
          process_id: 'load_collection',
          arguments: { id: { from_parameter: 'collection' }, spatial_extent: null, temporal_extent: null },
          result: true,
        },
      },
    },
  }) as unknown as Workflow;

const cluster = (workflow: Workflow) =>
  pinnedResources([workflow, dataset('chirps', 'c4'), dataset('era5', 'e7')] as KubeObject[]);

const inputsOf = async (workflow: Workflow, parameters: Record<string, unknown>) =>
  loadedDatasets(await workflowInputs(workflow, parameters, cluster(workflow), 'default'));

describe('a workflow source whose collection is a parameter', () => {
  it("reads the dataset the table's argument names, else the parameter's default, and records its version", async () => {
    const withArgument = await inputsOf(loading(), { collection: 'chirps' });
    expect(withArgument.map((d) => d.metadata.name)).toEqual(['chirps']);
    expect(workflowSourceVersion(loading(), withArgument)).toBe('anomaly@2,chirps@c4');

    const byDefault = await inputsOf(loading('era5'), {});
    expect(byDefault.map((d) => d.metadata.name)).toEqual(['era5']);
    expect(workflowSourceVersion(loading('era5'), byDefault)).toBe('anomaly@2,era5@e7');
    // An argument wins over the default.
    expect((await inputsOf(loading('era5'), { collection: 'chirps' })).map((d) => d.metadata.name)).toEqual(['chirps']);
    expect(workflowSourceProblem(loading(), { collection: 'chirps' })).toBeUndefined();
  });

  it('says which parameter has no value when neither an argument nor a default gives one', async () => {
    expect(await inputsOf(loading(), {})).toEqual([]);
    expect(workflowSourceProblem(loading(), { other: 'chirps' })).toBe(
      'Workflow anomaly loads the collection named by its parameter collection, which has no value: give it in spec.source.workflow.parameters (or a default in the Workflow).',
    );
  });
});
