import { jobKind } from '../../../core/cluster/builtin-kinds.ts';
import { inform } from '../../../core/cluster/informer.ts';
import type { KubeObject } from '../../../core/cluster/objects.ts';
import type { WatchEvent } from '../../../core/cluster/port.ts';
import type { RunErrorCode } from '../../../core/runs/errors.ts';
import type { WorkerReport } from '../../worker/protocol.ts';
import { attemptKey, type JobRunner, type JobSpec, type JobState } from '../runner.ts';
import {
  adoptedAttempt,
  keyOfJob,
  keyOfSpec,
  reportedAttempt,
  runOfJob,
  type Attempt,
  type RunOfJob,
} from './job-attempts.ts';
import { createAttemptJob } from './job-creation.ts';
import { deleteWorkerJob, sweepOrphans } from './job-deletion.ts';
import { finishedBeyondHistory, historyDefaults, type HistoryLimits } from './job-history.ts';
import { WORKER_SELECTOR, workerJobName, type BatchJob } from './job-manifest.ts';
import { jobFailed, jobStateOf, jobSucceeded, reportsOf } from './job-state.ts';
import { workerPodEnds, type PodEnds } from './pod-termination.ts';
import type { KubernetesJobRunnerOptions } from './runner-options.ts';

/**
 * Runs attempts as batch/v1 Jobs, all in one namespace (the store's). State comes from two informers: the Jobs
 * this runner made (selected by label), which say whether the pod is still running, and the owners'
 * `status.worker`, where the worker reports progress and its end. Cancelling deletes the Job in the foreground: the
 * kubelet's SIGTERM is the worker's cooperative cancel, the pod's termination grace period its grace. A run in the
 * Jobs' namespace owns its Jobs (the garbage collector deletes them with it); for a run elsewhere the runner
 * deletes them itself, when the run's deletion is watched and whenever a list finds a Job whose run is gone.
 */
export class KubernetesJobRunner implements JobRunner {
  readonly #options: KubernetesJobRunnerOptions;
  readonly #now: () => Date;
  readonly #history: HistoryLimits;
  /** Attempts, their Jobs and their reports, by attempt key. */
  readonly #attempts = new Map<string, Attempt>();
  readonly #jobs = new Map<string, BatchJob>();
  readonly #reports = new Map<string, WorkerReport>();
  readonly #podEnds: PodEnds<BatchJob>;
  /** The runs the owner informers know, by uid: a Job whose run is not among them may be an orphan. */
  readonly #runs = new Map<string, { kind: string; namespace: string | undefined }>();
  readonly #listeners: ((job: JobSpec, state: JobState) => void)[] = [];
  readonly #abort = new AbortController();
  readonly #loops: Promise<void>[] = [];

  constructor(options: KubernetesJobRunnerOptions) {
    this.#options = options;
    this.#now = options.now ?? (() => new Date());
    this.#history = {
      successful: options.history?.successful ?? historyDefaults.successful,
      failed: options.history?.failed ?? historyDefaults.failed,
    };
    this.#podEnds = workerPodEnds<BatchJob>(options, (job) => {
      if (!this.#abort.signal.aborted) this.#onJobEvent({ type: 'MODIFIED', object: job });
    });
  }

  /** Starts the informers; resolves once each has listed, so that `get` answers for attempts already running. */
  async sync(): Promise<void> {
    const { cluster, logger, namespaces, ownerKinds } = this.#options;
    const signal = this.#abort.signal;
    const jobs = inform<BatchJob>({
      cluster,
      kind: jobKind,
      namespace: this.#options.job.namespace,
      labelSelector: WORKER_SELECTOR,
      logger,
      signal,
      // A relist stands for the events a broken watch missed: Jobs gone meanwhile count as deleted.
      onList: (items) => {
        const listed = new Set(items.map(keyOfJob));
        for (const [key, job] of [...this.#jobs])
          if (!listed.has(key)) this.#onJobEvent({ type: 'DELETED', object: job });
        for (const job of items) this.#onJobEvent({ type: 'ADDED', object: job });
        // Jobs of runs in other namespaces that are gone: no garbage collector deletes them.
        sweepOrphans(this.#options, [...this.#jobs.values()], (job) => this.#runOf(job), this.#runs);
      },
      onEvent: (event) => this.#onJobEvent(event),
    });
    const synced = [jobs.synced];
    this.#loops.push(jobs.done);
    for (const namespace of namespaces?.length ? namespaces : [undefined]) {
      for (const kind of ownerKinds) {
        const owners = inform<KubeObject>({
          cluster,
          kind,
          namespace,
          logger,
          signal,
          // A relist also stands for the deletions a broken watch missed.
          onList: (items) => {
            for (const [uid, run] of this.#runs)
              if (run.kind === kind.kind && (!namespace || run.namespace === namespace)) this.#runs.delete(uid);
            for (const owner of items) this.#onOwner(owner);
            sweepOrphans(this.#options, [...this.#jobs.values()], (job) => this.#runOf(job), this.#runs);
          },
          onEvent: (event) => (event.type === 'DELETED' ? this.#forget(event.object) : this.#onOwner(event.object)),
        });
        synced.push(owners.synced);
        this.#loops.push(owners.done);
      }
    }
    await Promise.all(synced);
    // An attempt known only from its worker's report whose Job is gone and that never reported an end cannot
    // end any more: it failed. (Unanswered, the planner would take it for one never started and start it again.)
    for (const [key, attempt] of this.#attempts)
      if (attempt.fromReport && !this.#jobs.has(key) && !this.#reports.get(key)?.end)
        this.#fail(key, 'JobDeleted', 'the worker Job was deleted before the worker reported its end');
  }

  onChange(listener: (job: JobSpec, state: JobState) => void): void {
    this.#listeners.push(listener);
  }

  get(name: string, namespace: string | undefined): JobState | undefined {
    return this.#stateOf(attemptKey(name, namespace));
  }

  start(spec: JobSpec): void {
    const key = keyOfSpec(spec);
    if (this.#attempts.has(key) || this.#jobs.has(key)) return;
    this.#attempts.set(key, { spec, requestedAt: this.#now().toISOString(), cancelRequested: false });
    void createAttemptJob(spec, {
      ...this.#options,
      signal: this.#abort.signal,
      wanted: () => this.#attempts.get(key)?.cancelRequested === false,
      fail: (error) => this.#fail(key, error.type, error.message),
    });
    this.#observed(key);
  }

  cancel(name: string, namespace: string | undefined): void {
    const key = attemptKey(name, namespace);
    const attempt = this.#attemptOf(key);
    if (!attempt || attempt.cancelRequested) return;
    attempt.cancelRequested = true;
    const jobs = this.#options.job.namespace;
    void this.#options.cluster
      .delete(jobKind, workerJobName(name, namespace, jobs), jobs, { propagationPolicy: 'Foreground' })
      .catch((err: unknown) => this.#options.logger.warn({ err, job: key }, 'deleting the worker Job failed'));
  }

  /** Stops watching. Jobs keep running: they belong to the cluster, and the next operator adopts them. */
  async stop(): Promise<void> {
    this.#abort.abort();
    await Promise.all(this.#loops);
  }

  /** The attempt this runner started, or one it finds in the cluster (started before a restart or by another leader). */
  #attemptOf(key: string): Attempt | undefined {
    const known = this.#attempts.get(key);
    if (known) return known;
    const job = this.#jobs.get(key);
    const run = job && this.#runOf(job);
    if (!job || !run) return undefined;
    const adopted = adoptedAttempt(job, run, this.#now());
    this.#attempts.set(key, adopted);
    return adopted;
  }

  #runOf(job: BatchJob): RunOfJob | undefined {
    return runOfJob(job, this.#options.ownerKinds);
  }

  #stateOf(key: string): JobState | undefined {
    const attempt = this.#attemptOf(key);
    return (
      attempt &&
      jobStateOf({
        name: attempt.spec.name,
        requestedAt: attempt.requestedAt,
        job: this.#jobs.get(key),
        report: this.#reports.get(key),
        cancelRequested: attempt.cancelRequested,
        podEnd: this.#podEnds.of(key),
      })
    );
  }

  #onJobEvent({ type, object: job }: WatchEvent<BatchJob>): void {
    const key = keyOfJob(job);
    const failedWithoutReport = jobFailed(job) && !this.#reports.get(key)?.end;
    if (type !== 'DELETED' && this.#podEnds.holds(key, job, failedWithoutReport)) return;
    const beingRead = this.#podEnds.release(key);
    if (beingRead) this.#jobs.set(key, beingRead);
    if (type === 'DELETED' && !this.#attempts.has(key)) {
      // Every Job seen is adopted; one without its attempt belongs to a deleted run, forgotten with it.
      this.#jobs.delete(key);
      this.#podEnds.forget(key);
      return;
    }
    if (type === 'DELETED') {
      const attempt = this.#attemptOf(key);
      // What the Job said before it went stays said (a failure, say, collected after its TTL).
      const last = this.#stateOf(key);
      this.#jobs.delete(key);
      if (last?.phase === 'failed' && !this.#reports.get(key)?.end)
        this.#fail(key, last.error!.type, last.error!.message);
      else if (last?.phase === 'running' && !attempt!.cancelRequested)
        this.#fail(key, 'JobDeleted', 'the worker Job was deleted before the worker reported its end');
    } else this.#jobs.set(key, job);
    if (type !== 'DELETED' && jobSucceeded(job) && !this.#reports.get(key)?.end) void this.#confirmReport(key);
    this.#observed(key);
    if (type !== 'DELETED') this.#pruneHistory(job);
  }

  /**
   * Keeps the newest finished Jobs of the Job's run within the history limits and deletes the older ones. A Job
   * counts once the runner has its attempt's end (a succeeded Job whose report is still on its way stays).
   */
  #pruneHistory(changed: BatchJob): void {
    const run = this.#runOf(changed);
    const finished = (key: string, job: BatchJob) =>
      this.#runOf(job)?.uid === run?.uid && this.#stateOf(key)?.phase !== 'running';
    if (run)
      for (const job of finishedBeyondHistory(this.#jobs, finished, this.#history))
        void deleteWorkerJob(this.#options, job, 'history limit');
  }

  /**
   * A Job succeeded but its worker's report has not arrived: the owner's watch may lag the Job's. The worker writes
   * its report before it exits, so a read now sees it; if it holds none, the worker ended without reporting.
   */
  async #confirmReport(key: string): Promise<void> {
    const attempt = this.#attemptOf(key);
    if (!attempt) return;
    const { kind, name, namespace } = attempt.spec.owner;
    try {
      const owner = await this.#options.cluster.get(kind, name, namespace);
      if (owner) this.#onOwner(owner);
    } catch (err) {
      this.#options.logger.warn({ err, job: key }, 'reading the run of a finished Job failed');
      return;
    }
    if (!this.#reports.get(key)?.end)
      this.#fail(key, 'ReportMissing', 'the worker pod succeeded without reporting a result');
  }

  #onOwner(owner: KubeObject): void {
    const { uid, namespace } = owner.metadata;
    if (uid) this.#runs.set(uid, { kind: owner.kind, namespace });
    for (const report of reportsOf((owner.status as { worker?: unknown } | undefined)?.worker)) {
      const key = attemptKey(report.job, namespace);
      // A report that already ended stays: a later write of the run's status without it says nothing new.
      if (this.#reports.get(key)?.end) continue;
      this.#adoptReported(key, report.job, owner);
      this.#reports.set(key, report);
      this.#observed(key);
    }
  }

  /**
   * A report of an attempt this runner neither started nor found a Job of: an earlier leader started it, and its
   * Job went (collected after its TTL, or pruned) while no runner watched. The report still answers for it.
   */
  #adoptReported(key: string, name: string, owner: KubeObject): void {
    if (this.#attempts.has(key) || this.#jobs.has(key)) return;
    const kind = this.#options.ownerKinds.find((k) => k.apiVersion === owner.apiVersion && k.kind === owner.kind);
    if (!kind) return;
    this.#attempts.set(key, reportedAttempt(name, kind, owner, this.#now()));
  }

  /** A deleted run's attempts go with it; the garbage collector deletes the Jobs it owns, the runner the others. */
  #forget(owner: KubeObject): void {
    if (owner.metadata.uid) this.#runs.delete(owner.metadata.uid);
    for (const job of this.#jobs.values())
      if (!job.metadata.ownerReferences?.length && this.#runOf(job)?.uid === owner.metadata.uid)
        void deleteWorkerJob(this.#options, job, 'its run was deleted');
    for (const [key, attempt] of this.#attempts) {
      const { kind, name, namespace } = attempt.spec.owner;
      if (kind.kind === owner.kind && name === owner.metadata.name && namespace === owner.metadata.namespace) {
        this.#attempts.delete(key);
        this.#reports.delete(key);
        this.#podEnds.forget(key);
      }
    }
  }

  /** Records an end the worker could not report, as if it had. */
  #fail(key: string, errorType: RunErrorCode, message: string): void {
    const job = this.#attemptOf(key)?.spec.name ?? key;
    this.#reports.set(key, { job, at: this.#now().toISOString(), end: { type: 'error', errorType, message } });
    this.#observed(key);
  }

  #observed(key: string): void {
    const attempt = this.#attemptOf(key);
    const state = this.#stateOf(key);
    if (!attempt || !state) return;
    const json = JSON.stringify(state);
    if (json === attempt.emitted) return;
    attempt.emitted = json;
    for (const listener of this.#listeners) listener(attempt.spec, structuredClone(state));
  }
}
