import { datasetKind } from '../../../core/resources/dataset/schema.ts';
import { triggeredJob, type DatasetUpdated } from '../../../core/processing/jobs/triggers.ts';
import { processingJobKind } from '../../../core/resources/processing-job/schema.ts';
import { currentVersionOf } from '../../../core/resources/dataset/schema.ts';
import type { IngestionStatus } from '../../../core/resources/ingestion/schema.ts';
import type { Action } from '../../runtime/actions.ts';
import { ingestionResultSchema } from '../../worker/ingestion-input.ts';
import { featureRefreshSucceeded } from './feature-refresh.ts';
import { progressOf } from './follow.ts';
import { failRun, type Step, type StepContext, type Transition } from './transition.ts';

type JobEvent = NonNullable<IngestionStatus['events']>[number];

/**
 * The finish step, once the attempt ended without failing: a succeeded attempt switches the run's target to what
 * it wrote and the run succeeds; an attempt that stopped on cancellation cancels the run.
 */
export const finish: Step = (context) => {
  const { job } = context.observed;
  if (job?.phase === 'cancelled')
    return {
      status: {
        set: { phase: 'cancelled', finishedAt: job.finishedAt ?? context.at },
        reason: 'Cancelled',
        message: 'The run was cancelled; committed periods are kept.',
      },
      outcome: { kind: 'done', reason: 'cancelled' },
    };
  if (job?.phase !== 'succeeded') return undefined;
  return context.run.spec.mode === 'feature-refresh' ? finishFeatureRefresh(context) : finishRaster(context);
};

function finishFeatureRefresh(context: StepContext): Transition {
  const { run, observed, at, status } = context;
  const { collection, job, instance } = observed;
  const eventNumber = (status.events ?? []).length + 1;
  const done = featureRefreshSucceeded(run, collection, job!.result, at, eventNumber, instance.bbox);
  if ('error' in done) return failRun(context, { type: 'WorkerError', message: done.error });
  return succeed(context, [done.switchStatus], done.result, done.event as JobEvent);
}

function finishRaster(context: StepContext): Transition {
  const { run, observed, at, status } = context;
  const parsed = ingestionResultSchema.safeParse(observed.job!.result);
  if (!parsed.success)
    return failRun(context, {
      type: 'WorkerError',
      message: `the worker returned an invalid result: ${parsed.error.message}`,
    });
  const { datasetId, version, thumbnail, action } = parsed.data;
  const dataset = observed.dataset;
  // A replan after the switch was written but the run's status was not sees this version already current.
  const retained = (dataset?.status?.versions ?? []).filter((v) => v.id !== version.id);
  const current = currentVersionOf(dataset);
  const previous = current?.id === version.id ? retained.at(-1) : current;
  const updated: DatasetUpdated = {
    eventID: `${run.metadata.name}:${(status.events ?? []).length + 1}`,
    time: at,
    data: {
      dataset_id: datasetId,
      version: version.id,
      action: action ?? (!previous ? 'create' : run.spec.replace ? 'replace' : 'rematerialize'),
      previous_end: previous?.coverage.temporal.end ?? null,
      current_start: version.coverage.temporal.start ?? null,
      current_end: version.coverage.temporal.end ?? null,
    },
  };
  const event: JobEvent = { type: 'dataset.updated', source: `/datasets/${datasetId}`, ...updated };
  // The switch: readers follow `currentVersion`, so this one status write moves them all to the new version.
  const switchDataset: Action = {
    kind: 'patchStatusOf',
    ref: datasetKind,
    name: datasetId,
    namespace: run.metadata.namespace,
    // The versions list is computed from the Dataset as read: written only if nobody changed it since.
    resourceVersion: dataset?.metadata.resourceVersion,
    status: {
      currentVersion: version.id,
      // Retention (the dataset controller) drops old versions; the one replaced starts its grace period now.
      versions: [...retained.map((v) => (v.id === current?.id ? { ...v, supersededAt: at } : v)), version],
      extent: version.coverage,
      lastUpdated: version.createdAt,
      ...(thumbnail && { thumbnail }),
      ...(run.spec.publish && { publication: { status: 'published', publishedAt: at } }),
    },
  };
  // Workflows triggered by the update run as ProcessingJobs named after the event: a replanned finish names the same.
  const triggered: Action[] = (observed.workflows ?? []).map((workflow) => ({
    kind: 'apply',
    ref: processingJobKind,
    object: triggeredJob(workflow, updated),
  }));
  return succeed(context, [switchDataset, ...triggered], { datasetId, reused: false, version: version.id }, event);
}

function succeed(
  context: StepContext,
  switchTarget: Action[],
  result: Record<string, unknown>,
  event: JobEvent,
): Transition {
  const { status, observed, at, attempt, run } = context;
  const { job } = observed;
  return {
    before: switchTarget,
    status: {
      set: {
        phase: 'successful',
        startedAt: status.startedAt ?? job?.startedAt,
        finishedAt: job?.finishedAt ?? at,
        progress: progressOf(job, status),
        result,
        error: undefined,
        events: [...(status.events ?? []), event],
      },
      reason: 'Succeeded',
      message: `The run succeeded on attempt ${attempt}.`,
    },
    event: { reason: 'Succeeded', message: `Run ${run.metadata.name} succeeded.` },
    outcome: { kind: 'done', reason: 'succeeded' },
  };
}
