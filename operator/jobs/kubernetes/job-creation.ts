import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import { jobKind } from '../../../core/cluster/builtin-kinds.ts';
import { ApiError, isApiError, isRetriable } from '../../../core/cluster/errors.ts';
import { STRATUS_FIELD_MANAGER, type Cluster } from '../../../core/cluster/port.ts';
import type { RunErrorRecord } from '../../../core/runs/errors.ts';
import { attemptKey, type JobSpec } from '../runner.ts';
import { inputBytes, MAX_INPUT_BYTES, workerJobFor, type WorkerJobOptions } from './job-manifest.ts';

/** What creating an attempt's Job needs from its runner. */
export interface JobCreation {
  cluster: Cluster;
  logger: Logger;
  job: WorkerJobOptions;
  /** Whether the API server runs Indexed Jobs; a split attempt runs in one worker without them. */
  indexedJobs?: boolean;
  /** The first pause before creating the Job again after a failure a retry can cure; it doubles up to 30 s. */
  createRetryMs?: number;
  /** Aborted when the runner stops: the next leader finds the Job or starts the attempt. */
  signal: AbortSignal;
  /** Whether the attempt still wants its Job: not cancelled, not forgotten with its run. */
  wanted(): boolean;
  /** Ends the attempt with an error that no retry of the request can cure. */
  fail(error: RunErrorRecord): void;
}

/**
 * Why an attempt's Job is never created, whatever the API server says: its input does not fit a pod's arguments,
 * or it needs credentials from a Secret the Jobs' namespace cannot read. A secretKeyRef names a Secret of the pod's
 * own namespace: resolved in the Jobs' namespace, a run's Secret name would read whatever Secret of that name the
 * store's namespace holds.
 */
export function refusalOf(spec: JobSpec, jobs: WorkerJobOptions): RunErrorRecord | undefined {
  if (inputBytes(spec) > MAX_INPUT_BYTES)
    return { type: 'InputTooLarge', message: `the attempt's input exceeds ${MAX_INPUT_BYTES} bytes` };
  const { namespace } = spec.owner;
  if (spec.env?.length && namespace !== jobs.namespace)
    return {
      type: 'CredentialsAcrossNamespaces',
      message:
        `worker Jobs run in namespace ${jobs.namespace}, where the Secrets of namespace ${namespace} cannot be read: ` +
        `runs that need credentials must be in ${jobs.namespace}`,
    };
  return undefined;
}

async function create(spec: JobSpec, creation: JobCreation): Promise<void> {
  const { cluster, job: options } = creation;
  const { kind, name, namespace } = spec.owner;
  const owner = await cluster.get(kind, name, namespace);
  if (!owner?.metadata.uid) throw new ApiError('NotFound', `${kind.kind} ${name} is gone`);
  const { parts, ...whole } = spec;
  const runnable = parts && creation.indexedJobs !== false ? spec : whole;
  await cluster.create(jobKind, workerJobFor(runnable, owner.metadata.uid, options), {
    fieldManager: STRATUS_FIELD_MANAGER,
  });
}

/**
 * Creates the attempt's Job, retrying failures a retry can cure rather than failing the attempt: a failed attempt
 * makes the planner start the next one, while this one's Job may exist all the same (the server can commit a
 * create whose answer is lost). The Job's name makes a retry safe: AlreadyExists means created.
 */
export async function createAttemptJob(spec: JobSpec, creation: JobCreation): Promise<void> {
  const { logger, signal, createRetryMs = 500 } = creation;
  const refusal = refusalOf(spec, creation.job);
  if (refusal) return creation.fail(refusal);
  const job = attemptKey(spec.name, spec.owner.namespace);
  for (let delay = createRetryMs; ; delay = Math.min(delay * 2, 30_000)) {
    try {
      await create(spec, creation);
      return;
    } catch (err) {
      if (isApiError(err, 'AlreadyExists')) return;
      // Stopped: the next leader finds the Job or starts the attempt. Cancelled, or forgotten with its run: there
      // is nothing left to create.
      if (signal.aborted || !creation.wanted()) return;
      if (!isRetriable(err)) {
        logger.warn({ err, job }, 'creating the worker Job failed');
        return creation.fail({
          type: 'JobNotCreated',
          message: `the worker Job could not be created: ${(err as Error).message}`,
        });
      }
      logger.warn({ err, job, retryInMs: delay }, 'creating the worker Job failed; retrying');
      await sleep(delay, undefined, { signal }).catch(() => undefined);
      if (signal.aborted) return;
    }
  }
}
