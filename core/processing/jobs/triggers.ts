/**
 * Workflow triggers (docs/processing.md#workflow-triggers): a `Workflow` whose `spec.triggers` name `dataset.updated` for a
 * dataset runs its process once per such event, as a ProcessingJob queued at the event's time. The job's name comes
 * from the workflow and the event id, so an event seen twice (a replanned finish, a replay) names the same job and
 * starts nothing twice.
 */
import { createHash } from 'node:crypto';
import { API_VERSION } from '../../resources/kind.ts';
import { processingJobKind, type ProcessingJob } from '../../resources/processing-job/schema.ts';
import type { Workflow } from '../../resources/workflow/schema.ts';
import { isPlainObject } from '../values/kinds.ts';

/** Attempts a triggered run may take when its worker fails. */
export const TRIGGERED_MAX_ATTEMPTS = 3;

export const WORKFLOW_LABEL = 'climate.stratus.dev/workflow';

export interface DatasetUpdated {
  eventID: string;
  time: string;
  data: {
    dataset_id: string;
    version: string;
    action: string;
    current_start: string | null;
    current_end: string | null;
    previous_end: string | null;
  };
}

/** The workflows that an update of `datasetId` runs. */
export const triggeredBy = (workflows: readonly Workflow[], datasetId: string) =>
  workflows.filter((w) => w.spec.triggers?.some((t) => t.event === 'dataset.updated' && t.dataset === datasetId));

/** The event's values a process may declare as parameters, by name. */
function eventArguments(event: DatasetUpdated): Record<string, unknown> {
  const { dataset_id, version, current_start, current_end, previous_end } = event.data;
  return { dataset_id, version, start: current_start, end: current_end, previous_end };
}

/** The ProcessingJob that runs `workflow` for `event`, with the arguments its process declares. */
export function triggeredJob(workflow: Workflow, event: DatasetUpdated): ProcessingJob {
  const name = `${workflow.metadata.name.slice(0, 40)}-${createHash('sha256').update(event.eventID).digest('hex').slice(0, 12)}`;
  // A Workflow applied by hand may hold anything as parameters: what is no parameter object declares nothing here,
  // and the job then fails with the process's ProcessInvalid, where its owner sees it, instead of the finish.
  const parameters: unknown = workflow.spec.parameters;
  const declared = new Set(
    Array.isArray(parameters) ? parameters.map((p) => (isPlainObject(p) ? p.name : undefined)) : [],
  );
  const values = eventArguments(event);
  const args = Object.fromEntries(Object.entries(values).filter(([key]) => declared.has(key)));
  return {
    apiVersion: API_VERSION,
    kind: processingJobKind.kind,
    metadata: {
      name,
      namespace: workflow.metadata.namespace,
      labels: { [WORKFLOW_LABEL]: workflow.metadata.name },
      annotations: { 'climate.stratus.dev/event': event.eventID },
    },
    spec: {
      title: `${workflow.spec.id} for ${event.data.dataset_id} ${event.data.current_start} to ${event.data.current_end}`,
      process: {
        process_graph: { run: { process_id: workflow.spec.id, namespace: 'user', arguments: args, result: true } },
      },
      queuedAt: event.time,
      maxAttempts: TRIGGERED_MAX_ATTEMPTS,
      cancelRequested: false,
    },
  } as ProcessingJob;
}
