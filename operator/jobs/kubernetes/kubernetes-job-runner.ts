import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import { jobKind } from '../../../core/cluster/builtin-kinds.ts';
import { ApiError, isApiError } from '../../../core/cluster/errors.ts';
import type { KindRef, KubeObject } from '../../../core/cluster/objects.ts';
import type { Cluster, WatchEvent } from '../../../core/cluster/port.ts';
import { inform } from '../../runtime/informer.ts';
import { workerReportSchema, type WorkerReport } from '../../worker/protocol.ts';
import type { JobRunner, JobSpec, JobState } from '../runner.ts';
import {
  inputBytes,
  LABELS,
  MAX_INPUT_BYTES,
  WORKER_SELECTOR,
  workerJobFor,
  type BatchJob,
  type WorkerJobOptions,
} from './job-manifest.ts';
import { jobStateOf, jobSucceeded } from './job-state.ts';

export const FIELD_MANAGER = 'stratus-operator';

export interface KubernetesJobRunnerOptions {
  cluster: Cluster;
  logger: Logger;
  /** The kinds whose resources own attempts; the worker reports into their `status.worker`. */
  ownerKinds: KindRef[];
  /** The namespaces to watch; all of them when empty or absent. */
  namespaces?: string[];
  job: WorkerJobOptions;
  now?: () => Date;
  /** The first pause before creating a Job again after a failure a retry can cure; it doubles up to 30 s. */
  createRetryMs?: number;
}

/**
 * A failure that says nothing about the request: the API server (or a proxy before it) answered 5xx, or the
 * connection broke. Anything else (refused, invalid, the owner gone) would fail again.
 */
function retriable(err: unknown): boolean {
  return !(err instanceof ApiError) || err.reason === 'InternalError';
}

interface Attempt {
  spec: JobSpec;
  requestedAt: string;
  cancelRequested: boolean;
  /** Known from its worker's report alone: the worker ran, so its Job existed. */
  fromReport?: boolean;
  /** The JSON of the state last handed to listeners: listeners hear of changes only. */
  emitted?: string;
}

/**
 * Runs attempts as batch/v1 Jobs. State comes from two informers: the Jobs this runner made (selected by label),
 * which say whether the pod is still running, and the owners' `status.worker`, where the worker reports progress
 * and its end. Cancelling deletes the Job in the foreground: the kubelet's SIGTERM is the worker's cooperative
 * cancel, the pod's termination grace period its grace.
 */
export class KubernetesJobRunner implements JobRunner {
  readonly #options: KubernetesJobRunnerOptions;
  readonly #now: () => Date;
  readonly #attempts = new Map<string, Attempt>();
  readonly #jobs = new Map<string, BatchJob>();
  readonly #reports = new Map<string, WorkerReport>();
  readonly #listeners: ((job: JobSpec, state: JobState) => void)[] = [];
  readonly #abort = new AbortController();
  readonly #loops: Promise<void>[] = [];

  constructor(options: KubernetesJobRunnerOptions) {
    this.#options = options;
    this.#now = options.now ?? (() => new Date());
  }

  /** Starts the informers; resolves once each has listed, so that `get` answers for attempts already running. */
  async sync(): Promise<void> {
    const { cluster, logger, namespaces, ownerKinds } = this.#options;
    const signal = this.#abort.signal;
    const synced: Promise<void>[] = [];
    for (const namespace of namespaces?.length ? namespaces : [undefined]) {
      const jobs = inform<BatchJob>({
        cluster,
        kind: jobKind,
        namespace,
        labelSelector: WORKER_SELECTOR,
        logger,
        signal,
        // A relist stands for the events a broken watch missed: Jobs gone meanwhile count as deleted.
        onList: (items) => {
          const listed = new Set(items.map((job) => job.metadata.name));
          for (const job of [...this.#jobs.values()])
            if ((!namespace || job.metadata.namespace === namespace) && !listed.has(job.metadata.name))
              this.#onJobEvent({ type: 'DELETED', object: job });
          for (const job of items) this.#onJobEvent({ type: 'ADDED', object: job });
        },
        onEvent: (event) => this.#onJobEvent(event),
      });
      synced.push(jobs.synced);
      this.#loops.push(jobs.done);
      for (const kind of ownerKinds) {
        const owners = inform<KubeObject>({
          cluster,
          kind,
          namespace,
          logger,
          signal,
          onList: (items) => items.forEach((owner) => this.#onOwner(owner)),
          onEvent: (event) => (event.type === 'DELETED' ? this.#forget(event.object) : this.#onOwner(event.object)),
        });
        synced.push(owners.synced);
        this.#loops.push(owners.done);
      }
    }
    await Promise.all(synced);
    // An attempt known only from its worker's report whose Job is gone and that never reported an end cannot
    // end any more: it failed. (Unanswered, the planner would take it for one never started and start it again.)
    for (const [name, attempt] of this.#attempts)
      if (attempt.fromReport && !this.#jobs.has(name) && !this.#reports.get(name)?.end)
        this.#fail(name, 'JobDeleted', 'the worker Job was deleted before the worker reported its end');
  }

  onChange(listener: (job: JobSpec, state: JobState) => void): void {
    this.#listeners.push(listener);
  }

  get(name: string): JobState | undefined {
    const attempt = this.#attemptOf(name);
    return attempt && this.#stateOf(name, attempt);
  }

  start(spec: JobSpec): void {
    if (this.#attempts.has(spec.name) || this.#jobs.has(spec.name)) return;
    this.#attempts.set(spec.name, { spec, requestedAt: this.#now().toISOString(), cancelRequested: false });
    void this.#createRetrying(spec);
    this.#observed(spec.name);
  }

  /**
   * Creates the attempt's Job, retrying failures a retry can cure rather than failing the attempt: a failed
   * attempt makes the planner start the next one, while this one's Job may exist all the same (the server can
   * commit a create whose answer is lost). The Job's name makes a retry safe: AlreadyExists means created.
   */
  async #createRetrying(spec: JobSpec): Promise<void> {
    const { logger, createRetryMs = 500 } = this.#options;
    const signal = this.#abort.signal;
    for (let delay = createRetryMs; ; delay = Math.min(delay * 2, 30_000)) {
      try {
        await this.#create(spec);
        return;
      } catch (err) {
        if (isApiError(err, 'AlreadyExists')) return;
        // Stopped: the next leader finds the Job or starts the attempt. Cancelled, or forgotten with its run:
        // there is nothing left to create.
        const attempt = this.#attempts.get(spec.name);
        if (signal.aborted || !attempt || attempt.cancelRequested) return;
        if (!retriable(err)) {
          logger.warn({ err, job: spec.name }, 'creating the worker Job failed');
          this.#fail(spec.name, 'JobNotCreated', `the worker Job could not be created: ${(err as Error).message}`);
          return;
        }
        logger.warn({ err, job: spec.name, retryInMs: delay }, 'creating the worker Job failed; retrying');
        await sleep(delay, undefined, { signal }).catch(() => undefined);
        if (signal.aborted) return;
      }
    }
  }

  async #create(spec: JobSpec): Promise<void> {
    const { cluster } = this.#options;
    if (inputBytes(spec) > MAX_INPUT_BYTES) {
      this.#fail(spec.name, 'InputTooLarge', `the attempt's input exceeds ${MAX_INPUT_BYTES} bytes`);
      return;
    }
    const { kind, name, namespace } = spec.owner;
    const owner = await cluster.get(kind, name, namespace);
    if (!owner?.metadata.uid) throw new ApiError('NotFound', `${kind.kind} ${name} is gone`);
    const ownerReference = {
      apiVersion: kind.apiVersion,
      kind: kind.kind,
      name,
      uid: owner.metadata.uid,
      controller: true,
      blockOwnerDeletion: true,
    };
    await cluster.create(jobKind, workerJobFor(spec, ownerReference, this.#options.job), {
      fieldManager: FIELD_MANAGER,
    });
  }

  cancel(name: string): void {
    const attempt = this.#attemptOf(name);
    if (!attempt || attempt.cancelRequested) return;
    attempt.cancelRequested = true;
    const namespace = this.#jobs.get(name)?.metadata.namespace ?? attempt.spec.owner.namespace;
    void this.#options.cluster
      .delete(jobKind, name, namespace, { propagationPolicy: 'Foreground' })
      .catch((err: unknown) => this.#options.logger.warn({ err, job: name }, 'deleting the worker Job failed'));
  }

  /** Stops watching. Jobs keep running: they belong to the cluster, and the next operator adopts them. */
  async stop(): Promise<void> {
    this.#abort.abort();
    await Promise.all(this.#loops);
  }

  /** The attempt this runner started, or one it finds in the cluster (started before a restart or by another leader). */
  #attemptOf(name: string): Attempt | undefined {
    const known = this.#attempts.get(name);
    if (known) return known;
    const job = this.#jobs.get(name);
    const owner = job?.metadata.ownerReferences?.find((ref) => ref.controller);
    const kind = this.#options.ownerKinds.find((k) => k.apiVersion === owner?.apiVersion && k.kind === owner?.kind);
    if (!job || !owner || !kind) return undefined;
    const adopted: Attempt = {
      spec: {
        name,
        task: job.metadata.labels?.[LABELS.task] ?? '',
        input: undefined,
        owner: { kind, name: owner.name, namespace: job.metadata.namespace },
      },
      requestedAt: job.metadata.creationTimestamp ?? this.#now().toISOString(),
      cancelRequested: false,
    };
    this.#attempts.set(name, adopted);
    return adopted;
  }

  #stateOf(name: string, attempt: Attempt): JobState {
    return jobStateOf({
      name,
      requestedAt: attempt.requestedAt,
      job: this.#jobs.get(name),
      report: this.#reports.get(name),
      cancelRequested: attempt.cancelRequested,
    });
  }

  #onJobEvent({ type, object: job }: WatchEvent<BatchJob>): void {
    const { name } = job.metadata;
    if (type === 'DELETED') {
      const attempt = this.#attemptOf(name);
      // What the Job said before it went stays said (a failure, say, collected after its TTL).
      const last = attempt && this.#stateOf(name, attempt);
      this.#jobs.delete(name);
      if (last?.phase === 'failed' && !this.#reports.get(name)?.end)
        this.#fail(name, last.error!.type, last.error!.message);
      else if (last?.phase === 'running' && !attempt!.cancelRequested)
        this.#fail(name, 'JobDeleted', 'the worker Job was deleted before the worker reported its end');
    } else this.#jobs.set(name, job);
    if (type !== 'DELETED' && jobSucceeded(job) && !this.#reports.get(name)?.end) void this.#confirmReport(job);
    this.#observed(name);
  }

  /**
   * A Job succeeded but its worker's report has not arrived: the owner's watch may lag the Job's. The worker writes
   * its report before it exits, so a read now sees it; if it holds none, the worker ended without reporting.
   */
  async #confirmReport(job: BatchJob): Promise<void> {
    const attempt = this.#attemptOf(job.metadata.name);
    if (!attempt) return;
    const { kind, name, namespace } = attempt.spec.owner;
    try {
      const owner = await this.#options.cluster.get(kind, name, namespace);
      if (owner) this.#onOwner(owner);
    } catch (err) {
      this.#options.logger.warn({ err, job: job.metadata.name }, 'reading the run of a finished Job failed');
      return;
    }
    if (!this.#reports.get(job.metadata.name)?.end)
      this.#fail(job.metadata.name, 'ReportMissing', 'the worker pod succeeded without reporting a result');
  }

  #onOwner(owner: KubeObject): void {
    const parsed = workerReportSchema.safeParse((owner.status as { worker?: unknown } | undefined)?.worker);
    if (!parsed.success) return;
    const report = parsed.data;
    // A report that already ended stays: a later write of the run's status without it says nothing new.
    if (this.#reports.get(report.job)?.end) return;
    this.#adoptReported(report.job, owner);
    this.#reports.set(report.job, report);
    this.#observed(report.job);
  }

  /**
   * A report of an attempt this runner neither started nor found a Job of: an earlier leader started it, and its
   * Job went (collected after its TTL) while no runner watched. The report still answers for the attempt.
   */
  #adoptReported(name: string, owner: KubeObject): void {
    if (this.#attempts.has(name) || this.#jobs.has(name)) return;
    const kind = this.#options.ownerKinds.find((k) => k.apiVersion === owner.apiVersion && k.kind === owner.kind);
    if (!kind) return;
    const { name: ownerName, namespace, creationTimestamp } = owner.metadata;
    this.#attempts.set(name, {
      spec: { name, task: '', input: undefined, owner: { kind, name: ownerName, namespace } },
      requestedAt: creationTimestamp ?? this.#now().toISOString(),
      cancelRequested: false,
      fromReport: true,
    });
  }

  /** A deleted run's attempts go with it (the garbage collector deletes their Jobs). */
  #forget(owner: KubeObject): void {
    for (const [name, attempt] of this.#attempts) {
      const { kind, name: ownerName, namespace } = attempt.spec.owner;
      if (kind.kind === owner.kind && ownerName === owner.metadata.name && namespace === owner.metadata.namespace) {
        this.#attempts.delete(name);
        this.#reports.delete(name);
      }
    }
  }

  /** Records an end the worker could not report, as if it had. */
  #fail(name: string, errorType: string, message: string): void {
    this.#reports.set(name, { job: name, at: this.#now().toISOString(), end: { type: 'error', errorType, message } });
    this.#observed(name);
  }

  #observed(name: string): void {
    const attempt = this.#attemptOf(name);
    if (!attempt) return;
    const state = this.#stateOf(name, attempt);
    const json = JSON.stringify(state);
    if (json === attempt.emitted) return;
    attempt.emitted = json;
    for (const listener of this.#listeners) listener(attempt.spec, structuredClone(state));
  }
}
