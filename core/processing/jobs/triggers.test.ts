import { describe, expect, it } from 'vitest';
import type { Workflow } from '../../resources/workflow/schema.ts';
import { triggeredBy, triggeredJob, type DatasetUpdated } from './triggers.ts';

const workflow = (name: string, dataset: string, parameters: string[] = ['start', 'end']): Workflow =>
  ({
    apiVersion: 'climate.stratus.dev/v1alpha1',
    kind: 'Workflow',
    metadata: { name, namespace: 'default' },
    spec: {
      id: name.replace(/-/g, '_'),
      parameters: parameters.map((p) => ({ name: p, description: p, schema: {} })),
      processGraph: {},
      triggers: [{ event: 'dataset.updated', dataset }],
    },
  }) as Workflow;

const event = (eventID: string): DatasetUpdated => ({
  eventID,
  time: '2026-11-25T10:00:00Z',
  data: {
    dataset_id: 'chirps',
    version: 'v2',
    action: 'append',
    previous_end: '2024-01-31',
    current_start: '2024-01-01',
    current_end: '2024-02-29',
  },
});

describe('workflow triggers', () => {
  it('pick the workflows that name the dataset', () => {
    const all = [workflow('monthly-mean', 'chirps'), workflow('other', 'era5')];
    expect(triggeredBy(all, 'chirps').map((w) => w.metadata.name)).toEqual(['monthly-mean']);
  });

  it('name the job after the workflow and the event: the same event names the same job, another event another', () => {
    const w = workflow('monthly-mean', 'chirps');
    expect(triggeredJob(w, event('run-1:1')).metadata.name).toBe(triggeredJob(w, event('run-1:1')).metadata.name);
    expect(triggeredJob(w, event('run-1:1')).metadata.name).not.toBe(triggeredJob(w, event('run-2:1')).metadata.name);
    expect(triggeredJob(w, event('run-1:1')).metadata.name).toMatch(/^monthly-mean-[0-9a-f]{12}$/);
  });

  it('queue the job at the event, calling the process with the event values it declares, retried on worker failure', () => {
    const job = triggeredJob(workflow('monthly-mean', 'chirps', ['start', 'end', 'dataset_id']), event('run-1:1'));
    expect(job.spec).toMatchObject({
      queuedAt: '2026-11-25T10:00:00Z',
      maxAttempts: 3,
      process: {
        process_graph: {
          run: {
            process_id: 'monthly_mean',
            namespace: 'user',
            arguments: { start: '2024-01-01', end: '2024-02-29', dataset_id: 'chirps' },
            result: true,
          },
        },
      },
    });
    const none = triggeredJob(workflow('plain', 'chirps', []), event('run-1:1'));
    expect(none.spec.process).toMatchObject({ process_graph: { run: { arguments: {} } } });
  });

  it.each<[string, unknown]>([
    ['a string', 'start'],
    ['an object', { name: 'start' }],
    ['a list of null', [null]],
  ])('queue the job of a workflow applied with parameters that are %s, with no arguments', (_, parameters) => {
    const applied = workflow('by-hand', 'chirps');
    const job = triggeredJob({ ...applied, spec: { ...applied.spec, parameters } } as Workflow, event('run-1:1'));
    expect(job.spec.process).toMatchObject({ process_graph: { run: { process_id: 'by_hand', arguments: {} } } });
  });
});
