/**
 * The steps of a Delivery's lifecycle (plan.ts). Deliveries to one target run one at a time, oldest first. Each
 * attempt (`<delivery>-a<n>`) resumes the checkpoint the earlier ones left. An ended delivery past its export's
 * history limit is deleted; a deleted one keeps its resource until a worker removed its checkpoint.
 */
import type { deliveryConditions } from '../../../core/resources/delivery/conditions.ts';
import { deliveryKind, type DeliveryStatus } from '../../../core/resources/delivery/schema.ts';
import { DEFAULT_BACKOFF, retryDelaySeconds } from '../../../core/runs/backoff.ts';
import type { Action, Outcome } from '../../runtime/actions.ts';
import { filesRemoval, reportedProgress, type RunStep, type Transition } from '../../runtime/run-lifecycle.ts';
import { deliveryResultSchema } from '../../worker/delivery-input.ts';
import { deliveryAttemptName, deliveryCleanupName, startAttempt, unstartable } from './attempt.ts';
import type { DeliveryContext } from './observed.ts';

/** Holds a deleted delivery until its checkpoint is removed. */
export const CHECKPOINT_FINALIZER = 'climate.stratus.dev/delivery-checkpoint';

type DeliveryTransition = Transition<typeof deliveryConditions, DeliveryStatus>;
type DeliveryStep = RunStep<DeliveryContext, typeof deliveryConditions, DeliveryStatus>;

const done = (reason: string): Outcome => ({ kind: 'done', reason });
const WAIT_MS = 1_000;

function failed(type: string, message: string, at: string): DeliveryTransition {
  const summary = `${type}: ${message}`;
  return {
    status: { set: { phase: 'failed', finishedAt: at, error: { type, message } }, reason: 'Failed', message: summary },
    event: { reason: 'Failed', message: summary },
    outcome: done('failed'),
  };
}

/** A deleted delivery: its attempt stops, a worker removes its checkpoint, then the finalizer goes. */
export const deleted: DeliveryStep = ({ run: delivery, observed }) => {
  const input = {
    delivery: delivery.metadata.name,
    namespace: delivery.metadata.namespace ?? 'default',
    exportId: delivery.spec.exportId,
    job: delivery.spec.jobId,
    storageRoot: observed.storageRoot,
  };
  return filesRemoval({
    running: observed.job?.phase === 'running' ? delivery.status!.jobName! : undefined,
    cleanup: observed.cleanup,
    job: { name: deliveryCleanupName(delivery), task: 'remove-delivery-files', input },
    finalizer: CHECKPOINT_FINALIZER,
    left: (why) => `The checkpoint of delivery ${delivery.metadata.name} stays in the store: ${why}.`,
  });
};

/** An ended delivery: the newest to end trims the export's history, those past the limit going with their files. */
export const finished: DeliveryStep = ({ run: delivery, status: { phase }, observed }) => {
  if (phase !== 'successful' && phase !== 'failed') return undefined;
  const expired = observed.expired ?? [];
  return {
    after: expired.map((name): Action => ({
      kind: 'delete',
      ref: deliveryKind,
      name,
      namespace: delivery.metadata.namespace,
    })),
    outcome: done(expired.length > 0 ? `deleting ${expired.length} past the history limit` : `delivery ${phase}`),
  };
};

/**
 * No attempt is known: the first starts in its turn at the target; a later one (a retry, or one its runner lost,
 * as an embedded operator that restarted does) starts once the backoff is over.
 */
export const start: DeliveryStep = ({ run: delivery, status, observed, now, at }) => {
  if (observed.job) return undefined;
  const first = (status.attempt ?? 0) === 0;
  if (!first && status.retryAfter && Date.parse(status.retryAfter) > now.getTime())
    return {
      outcome: { kind: 'requeueAfter', ms: Date.parse(status.retryAfter) - now.getTime(), reason: 'retry backoff' },
    };
  const why = unstartable(delivery, observed);
  if (why) return failed(why[0], why[1], at);
  if (first && observed.ahead.length > 0)
    return {
      status: {
        set: { phase: 'accepted' },
        reason: 'Waiting',
        message: `Waiting for ${observed.ahead.join(', ')} to the same target.`,
      },
      outcome: { kind: 'requeueAfter', ms: WAIT_MS, reason: 'another delivery to the target runs' },
    };
  const name = first ? deliveryAttemptName(delivery, 1) : status.jobName!;
  return {
    status: {
      set: first
        ? { phase: 'running', attempt: 1, jobName: name, startedAt: at }
        : { phase: 'running', retryAfter: undefined },
      reason: 'Running',
      message: `Attempt ${name} started.`,
    },
    after: [startAttempt(delivery, name, observed)],
    outcome: done('attempt started'),
  };
};

export const follow: DeliveryStep = ({ status, observed: { job: state } }) => {
  if (state?.phase !== 'running') return undefined;
  const progress = reportedProgress(state);
  return {
    status: {
      set: { phase: 'running', ...(progress && { progress }) },
      reason: 'Running',
      message: state.progress?.message ?? `Attempt ${status.jobName} running.`,
    },
    outcome: done('running'),
  };
};

/** The delivery's end, from its worker's result. */
export const finish: DeliveryStep = ({ run: delivery, observed: { job: state }, at }) => {
  if (state?.phase !== 'succeeded') return undefined;
  const parsed = deliveryResultSchema.safeParse(state.result);
  if (!parsed.success)
    return failed('WorkerError', `The worker returned an invalid result: ${parsed.error.message}`, at);
  if (parsed.data.outcome === 'failed') {
    const error = parsed.data.error ?? { type: 'DeliveryIncomplete', message: 'The delivery failed.' };
    return failed(error.type, error.message, at);
  }
  const message = `Delivered to ${delivery.spec.exportId}${delivery.spec.dryRun ? ' (dry run)' : ''}.`;
  return {
    status: {
      set: { phase: 'successful', finishedAt: at, error: undefined, retryAfter: undefined },
      reason: 'Successful',
      message,
    },
    event: { reason: 'Delivered', message },
    outcome: done('successful'),
  };
};

/** An attempt that ended early (failed or cancelled): the next resumes after the backoff, while attempts remain. */
export const retry: DeliveryStep = ({ run: delivery, status, observed: { job: state, backoff }, now, at }) => {
  if (state?.phase !== 'failed' && state?.phase !== 'cancelled') return undefined;
  const error = state.error ?? {
    type: 'WorkerError',
    message: `The attempt ${state.phase === 'cancelled' ? 'was cancelled' : 'failed'}.`,
  };
  const attempt = status.attempt ?? 1;
  if (attempt >= delivery.spec.maxAttempts) return failed(error.type, error.message, at);
  const retryAfter = new Date(
    now.getTime() + retryDelaySeconds(attempt, backoff ?? DEFAULT_BACKOFF) * 1000,
  ).toISOString();
  return {
    status: {
      set: {
        phase: 'retrying',
        attempt: attempt + 1,
        jobName: deliveryAttemptName(delivery, attempt + 1),
        retryAfter,
        error,
      },
      reason: 'Retrying',
      message: `Attempt ${attempt} of ${delivery.spec.maxAttempts} failed (${error.type}: ${error.message}); the next resumes at ${retryAfter}.`,
    },
    outcome: { kind: 'requeueAfter', ms: Date.parse(retryAfter) - now.getTime(), reason: 'retry backoff' },
  };
};
