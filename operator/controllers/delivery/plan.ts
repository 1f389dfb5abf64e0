/**
 * The lifecycle of a Delivery (docs/exports.md):
 *
 *   accepted --its turn at the target--> running --every chunk has an outcome--> successful | failed
 *   running --the worker ended early--> retrying --backoff--> running (resumes from the checkpoint)
 *
 * Deliveries to one target run one at a time, oldest first. Each attempt (`<delivery>-a<n>`) resumes the
 * checkpoint the earlier ones left; the status mirrors the checkpoint's chunks and report. An ended delivery past
 * its export's history limit is deleted; a deleted one keeps its resource until a worker removed its checkpoint.
 */
import type { Checkpoint } from '../../../core/exports/checkpoint.ts';
import { chunkStatuses, reportOf } from '../../../core/exports/checkpoint.ts';
import { PAYLOAD_FILE } from '../../../core/exports/payload.ts';
import type { ReasonOf } from '../../../core/resources/conditions.ts';
import { deliveryConditions } from '../../../core/resources/delivery/conditions.ts';
import { deliveryKind, type Delivery, type DeliveryStatus } from '../../../core/resources/delivery/schema.ts';
import type { Export } from '../../../core/resources/export/schema.ts';
import type { ProcessingJob } from '../../../core/resources/processing-job/schema.ts';
import type { Program } from '../../../core/resources/program/schema.ts';
import { changeLogEnabled } from '../../../core/tracker/metadata.ts';
import { DEFAULT_BACKOFF, retryDelaySeconds, type RetryBackoff } from '../../../core/runs/backoff.ts';
import type { JobSpec, JobState } from '../../jobs/runner.ts';
import type { Action, Outcome, Plan } from '../../runtime/actions.ts';
import { removeFilesThenRelease } from '../../runtime/files-removal.ts';
import { eventOf, readinessConditions, readinessOf } from '../../runtime/readiness.ts';
import { CREDENTIALS_ENV, TOKEN_ENV } from '../../worker/credentials.ts';
import { deliveryResultSchema, type DeliveryInput } from '../../worker/delivery-input.ts';

/** Holds a deleted delivery until its checkpoint is removed. */
export const CHECKPOINT_FINALIZER = 'climate.stratus.dev/delivery-checkpoint';

export interface DeliveryObserved {
  job: JobState | undefined;
  /** The worker that removes a deleted delivery's checkpoint (`deliveryCleanupName`). */
  cleanup?: JobState | undefined;
  /** Ended deliveries of the export older than its newest `deliveryHistoryLimit` (observed for an ended one). */
  expired?: string[];
  export: Export | undefined;
  /** The Program a tracker target names, when it has one. */
  program: Program | undefined;
  source: ProcessingJob | undefined;
  checkpoint: Checkpoint | undefined;
  /** Unfinished deliveries to the same target that run before this one. */
  ahead: string[];
  storageRoot: string;
  /** `changelog.aggregate`; a tracker target follows its program's switch instead. */
  changelog: boolean;
  backoff?: RetryBackoff;
}

type Reason = ReasonOf<typeof deliveryConditions>;

interface Decision {
  set?: DeliveryStatus;
  reason?: Reason;
  message?: string;
  actions?: Action[];
  event?: 'Delivered' | 'Failed' | 'FilesLeft';
  outcome: Outcome;
}

const done = (reason: string): Outcome => ({ kind: 'done', reason });
const WAIT_MS = 1_000;

export const deliveryAttemptName = (delivery: Delivery, attempt: number) => `${delivery.metadata.name}-a${attempt}`;
export const deliveryCleanupName = (delivery: Delivery) => `${delivery.metadata.name}-gc`;

/** A deleted delivery: its attempt stops, a worker removes its checkpoint, then the finalizer goes. */
function deleted(delivery: Delivery, observed: DeliveryObserved): Decision {
  const input = {
    delivery: delivery.metadata.name,
    namespace: delivery.metadata.namespace ?? 'default',
    exportId: delivery.spec.exportId,
    job: delivery.spec.jobId,
    storageRoot: observed.storageRoot,
  };
  const { filesLeft, ...decision } = removeFilesThenRelease({
    running: observed.job?.phase === 'running' ? delivery.status!.jobName! : undefined,
    cleanup: observed.cleanup,
    job: { name: deliveryCleanupName(delivery), task: 'remove-delivery-files', input },
    finalizer: CHECKPOINT_FINALIZER,
    left: (why) => `The checkpoint of delivery ${delivery.metadata.name} stays in the store: ${why}.`,
  });
  return filesLeft ? { ...decision, event: 'FilesLeft', message: filesLeft } : decision;
}

function failed(type: string, message: string, at: string): Decision {
  return {
    set: { phase: 'failed', finishedAt: at, error: { type, message } },
    reason: 'Failed',
    message: `${type}: ${message}`,
    event: 'Failed',
    outcome: done('failed'),
  };
}

/** Credentials from the export's Secret, by the variables the worker reads. */
function credentialsEnv(target: Export['spec']['target']): JobSpec['env'] {
  if (target.tokenSecret) return [{ name: TOKEN_ENV, secretKeyRef: { name: target.tokenSecret, key: 'token' } }];
  if (target.credentialsSecret)
    return Object.entries(CREDENTIALS_ENV).map(([key, name]) => ({
      name,
      secretKeyRef: { name: target.credentialsSecret!, key },
    }));
  return undefined;
}

function startAttempt(delivery: Delivery, name: string, observed: DeliveryObserved): Action {
  const target = observed.export!;
  const input: DeliveryInput = {
    delivery: delivery.metadata.name,
    namespace: delivery.metadata.namespace ?? 'default',
    exportId: delivery.spec.exportId,
    job: delivery.spec.jobId,
    storageRoot: observed.storageRoot,
    payload: `${observed.source!.status!.results!.path}/${PAYLOAD_FILE}`,
    dryRun: delivery.spec.dryRun,
    user: delivery.spec.requestedBy ?? 'anonymous',
    changelog: observed.program ? changeLogEnabled(observed.program) : observed.changelog,
    export: target.spec,
    ...(observed.program && {
      program: { uid: observed.program.spec.uid, programStage: observed.program.spec.programStage! },
    }),
  };
  const env = credentialsEnv(target.spec.target);
  return { kind: 'startJob', job: { name, task: 'delivery', input, ...(env && { env }) } };
}

/** Why the delivery cannot start, if it cannot: its export or its payload is gone. */
function unstartable(delivery: Delivery, observed: DeliveryObserved): [string, string] | undefined {
  if (!observed.export) return ['InvalidRequest', `The export ${delivery.spec.exportId} does not exist.`];
  const programName = observed.export.spec.target.program;
  if (programName !== undefined) {
    const program = observed.program;
    if (!program)
      return ['InvalidRequest', `The program ${programName} of export ${delivery.spec.exportId} does not exist.`];
    if (program.spec.trackedEntityType)
      return [
        'InvalidRequest',
        `The program ${programName} enrols tracked entities; exports deliver events to event programs only.`,
      ];
    if (!program.spec.programStage)
      return ['InvalidRequest', `The program ${programName} names no programStage for the events.`];
  }
  const source = observed.source;
  if (!source) return ['InvalidPayload', `The job ${delivery.spec.jobId} does not exist.`];
  if (source.status?.phase !== 'finished' || !source.status.results)
    return [
      'InvalidPayload',
      `The job ${delivery.spec.jobId} has not finished (${source.status?.phase ?? 'created'}).`,
    ];
  if (!source.status.results.files.some((f) => f.name === PAYLOAD_FILE))
    return ['InvalidPayload', `The job ${delivery.spec.jobId} saved no dhis2-json result (${PAYLOAD_FILE}).`];
  return undefined;
}

/** The delivery's end, from its worker's result. */
function ended(delivery: Delivery, state: JobState, at: string): Decision {
  const parsed = deliveryResultSchema.safeParse(state.result);
  if (!parsed.success)
    return failed('WorkerError', `The worker returned an invalid result: ${parsed.error.message}`, at);
  if (parsed.data.outcome === 'failed') {
    const error = parsed.data.error ?? { type: 'DeliveryIncomplete', message: 'The delivery failed.' };
    return failed(error.type, error.message, at);
  }
  return {
    set: { phase: 'successful', finishedAt: at, error: undefined, retryAfter: undefined },
    reason: 'Successful',
    message: `Delivered to ${delivery.spec.exportId}${delivery.spec.dryRun ? ' (dry run)' : ''}.`,
    event: 'Delivered',
    outcome: done('successful'),
  };
}

function decide(delivery: Delivery, observed: DeliveryObserved, now: Date): Decision {
  const at = now.toISOString();
  const status = delivery.status ?? {};
  const phase = status.phase;
  if (delivery.metadata.deletionTimestamp) return deleted(delivery, observed);
  if (phase === 'successful' || phase === 'failed') {
    // The newest to end trims the export's history: those past the limit go, with their checkpoints.
    const expired = observed.expired ?? [];
    return {
      actions: expired.map((name): Action => ({
        kind: 'delete',
        ref: deliveryKind,
        name,
        namespace: delivery.metadata.namespace,
      })),
      outcome: done(expired.length > 0 ? `deleting ${expired.length} past the history limit` : `delivery ${phase}`),
    };
  }
  const state = observed.job;
  if (!state && (status.attempt ?? 0) === 0) {
    const why = unstartable(delivery, observed);
    if (why) return failed(why[0], why[1], at);
    if (observed.ahead.length > 0)
      return {
        set: { phase: 'accepted' },
        reason: 'Waiting',
        message: `Waiting for ${observed.ahead.join(', ')} to the same target.`,
        outcome: { kind: 'requeueAfter', ms: WAIT_MS, reason: 'another delivery to the target runs' },
      };
    const name = deliveryAttemptName(delivery, 1);
    return {
      set: { phase: 'running', attempt: 1, jobName: name, startedAt: at },
      reason: 'Running',
      message: `Attempt ${name} started.`,
      actions: [startAttempt(delivery, name, observed)],
      outcome: done('attempt started'),
    };
  }
  if (!state) {
    // The attempt's runner lost it (an embedded operator that restarted), or a retry is due.
    if (status.retryAfter && Date.parse(status.retryAfter) > now.getTime())
      return {
        outcome: { kind: 'requeueAfter', ms: Date.parse(status.retryAfter) - now.getTime(), reason: 'retry backoff' },
      };
    const why = unstartable(delivery, observed);
    if (why) return failed(why[0], why[1], at);
    return {
      set: { phase: 'running', retryAfter: undefined },
      reason: 'Running',
      message: `Attempt ${status.jobName} started.`,
      actions: [startAttempt(delivery, status.jobName!, observed)],
      outcome: done('attempt started'),
    };
  }
  if (state.phase === 'running') {
    const progress = state.progress && {
      ...state.progress,
      percent: state.progress.total > 0 ? Math.round((state.progress.done / state.progress.total) * 1000) / 10 : 0,
    };
    return {
      set: { phase: 'running', ...(progress && { progress }) },
      reason: 'Running',
      message: state.progress?.message ?? `Attempt ${status.jobName} running.`,
      outcome: done('running'),
    };
  }
  if (state.phase === 'succeeded') return ended(delivery, state, at);
  const error = state.error ?? {
    type: 'WorkerError',
    message: `The attempt ${state.phase === 'cancelled' ? 'was cancelled' : 'failed'}.`,
  };
  const attempt = status.attempt ?? 1;
  if (attempt >= delivery.spec.maxAttempts) return failed(error.type, error.message, at);
  const retryAfter = new Date(
    now.getTime() + retryDelaySeconds(attempt, observed.backoff ?? DEFAULT_BACKOFF) * 1000,
  ).toISOString();
  return {
    set: {
      phase: 'retrying',
      attempt: attempt + 1,
      jobName: deliveryAttemptName(delivery, attempt + 1),
      retryAfter,
      error,
    },
    reason: 'Retrying',
    message: `Attempt ${attempt} of ${delivery.spec.maxAttempts} failed (${error.type}: ${error.message}); the next resumes at ${retryAfter}.`,
    outcome: { kind: 'requeueAfter', ms: Date.parse(retryAfter) - now.getTime(), reason: 'retry backoff' },
  };
}

/** The export.delivered event of a delivery that changed the target (DESIGN.md §4 JobEvents). */
function deliveredEvent(delivery: Delivery, status: DeliveryStatus, at: string): DeliveryStatus['events'] {
  const report = status.report;
  if (delivery.spec.dryRun || !report) return undefined;
  const { imported, updated, deleted } = report.importCount;
  if (imported + updated + deleted === 0) return undefined;
  return [
    {
      type: 'export.delivered',
      source: `/exports/${delivery.spec.exportId}`,
      data: {
        export_id: delivery.spec.exportId,
        delivery_job_id: delivery.metadata.name,
        job_id: delivery.spec.jobId,
        imported,
        updated,
        deleted,
      },
      eventID: `${delivery.metadata.name}:1`,
      time: at,
    },
  ];
}

export function planDelivery(delivery: Delivery, observed: DeliveryObserved, now: Date): Plan {
  const at = now.toISOString();
  const decision = decide(delivery, observed, now);
  const status = delivery.status ?? {};
  // The checkpoint is what the worker did: the status shows it whatever the decision.
  const mirrored: DeliveryStatus = observed.checkpoint
    ? { chunks: chunkStatuses(observed.checkpoint), report: reportOf(observed.checkpoint, delivery.spec.dryRun) }
    : {};
  const next: DeliveryStatus = { ...status, ...mirrored, ...decision.set };
  if (decision.set?.phase === 'successful' || decision.set?.phase === 'failed') {
    next.events = deliveredEvent(delivery, next, at);
    next.progress = next.chunks && { done: next.chunks.length, total: next.chunks.length, percent: 100 };
  }
  const ready = status.conditions?.find((c) => c.type === 'Ready');
  const changed =
    JSON.stringify({ ...next, conditions: undefined }) !== JSON.stringify({ ...status, conditions: undefined }) ||
    (decision.reason !== undefined && (ready?.reason !== decision.reason || ready.message !== decision.message));
  const write: Action[] = changed
    ? [
        {
          kind: 'patchStatus',
          status: {
            ...next,
            conditions: decision.reason
              ? readinessConditions(
                  status.conditions,
                  readinessOf(deliveryConditions, decision.reason, decision.message ?? decision.reason),
                  delivery.metadata.generation as number | undefined,
                  now,
                )
              : status.conditions,
          },
        },
      ]
    : [];
  const event = decision.event ? [eventOf(deliveryConditions, decision.event, decision.message ?? '')] : [];
  const finalizer: Action[] =
    delivery.metadata.deletionTimestamp ||
    (delivery.metadata.finalizers as string[] | undefined)?.includes(CHECKPOINT_FINALIZER)
      ? []
      : [{ kind: 'addFinalizer', name: CHECKPOINT_FINALIZER }];
  return { actions: [...finalizer, ...write, ...(decision.actions ?? []), ...event], outcome: decision.outcome };
}
