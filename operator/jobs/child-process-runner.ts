import { fork, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import {
  PART_COUNT_ENV,
  PART_INDEX_ENV,
  type FromWorker,
  type Part,
  type PartReport,
  type ToWorker,
} from '../worker/protocol.ts';
import { workerLogEnv, type LogSettings } from '../../core/logging/settings.ts';
import { WORKER_NODE_FLAGS } from '../worker/node-flags.ts';
import { combinedReport, endedState } from './parts.ts';
import { attemptKey, runContextOf, type JobRunner, type JobSpec, type JobState } from './runner.ts';

const WORKER = resolve(import.meta.dirname, '../worker/main.ts');

/** How long a cancelled attempt may take to stop before it is killed, unless the runner is told otherwise. */
export const CANCEL_GRACE_MS = 10_000;

export interface ChildProcessRunnerOptions {
  /** How long a cancelled attempt may take to stop before it is killed. */
  cancelGraceMs?: number;
  now?: () => Date;
  /** Looks up one key of a Secret, for `JobSpec.env`; without it a job naming a Secret fails. */
  resolveSecret?: (namespace: string | undefined, name: string, key: string) => Promise<string | undefined>;
  /** How the workers log (this process's settings: they write the same files); without them they do not log. */
  logging?: LogSettings;
}

/** One attempt: its state as reported, and the worker processes it has running. */
interface Attempt {
  job: JobSpec;
  state: JobState;
  children: Set<ChildProcess>;
  cancelRequested: boolean;
  /** Its run is gone: forget it once it ended. */
  orphaned: boolean;
}

/** Who an attempt works for, as `forgetOwner` names it. */
const ownerKey = ({ kind, name, namespace }: JobSpec['owner']) => `${kind.kind}/${namespace ?? ''}/${name}`;

/**
 * The embedded job runner: one forked worker process per attempt (one per part of a split attempt, the way an
 * Indexed Job runs pods), the same code a Kubernetes Job runs.
 */
export class ChildProcessRunner implements JobRunner {
  readonly #attempts = new Map<string, Attempt>();
  /** The attempt keys of each owner, so that a run's deletion forgets its attempts without a search. */
  readonly #byOwner = new Map<string, Set<string>>();
  readonly #listeners: ((job: JobSpec, state: JobState) => void)[] = [];
  readonly #grace: number;
  /** Children already asked to stop (a WeakSet: an ended child is forgotten with its attempt). */
  readonly #cancelled = new WeakSet<ChildProcess>();
  readonly #now: () => Date;
  readonly #resolveSecret: ChildProcessRunnerOptions['resolveSecret'];
  readonly #logging: LogSettings | undefined;

  constructor(options: ChildProcessRunnerOptions = {}) {
    this.#grace = options.cancelGraceMs ?? CANCEL_GRACE_MS;
    this.#now = options.now ?? (() => new Date());
    this.#resolveSecret = options.resolveSecret;
    this.#logging = options.logging;
  }

  /** The job's Secret-backed variables; rejects naming the first key that cannot be resolved. */
  async #secretEnv(job: JobSpec): Promise<Record<string, string>> {
    const env: Record<string, string> = {};
    for (const { name, secretKeyRef: ref } of job.env ?? []) {
      const value = await this.#resolveSecret?.(job.owner.namespace, ref.name, ref.key);
      if (value === undefined) throw new Error(`Secret ${ref.name} has no key ${ref.key} (for ${name})`);
      env[name] = value;
    }
    return env;
  }

  onChange(listener: (job: JobSpec, state: JobState) => void): void {
    this.#listeners.push(listener);
  }

  get(name: string, namespace: string | undefined): JobState | undefined {
    const attempt = this.#attempts.get(attemptKey(name, namespace));
    return attempt ? structuredClone(attempt.state) : undefined;
  }

  start(job: JobSpec): void {
    const key = attemptKey(job.name, job.owner.namespace);
    if (this.#attempts.has(key)) return;
    const state: JobState = { name: job.name, phase: 'running', startedAt: this.#now().toISOString() };
    const attempt: Attempt = { job, state, children: new Set(), cancelRequested: false, orphaned: false };
    this.#attempts.set(key, attempt);
    const owner = ownerKey(job.owner);
    this.#byOwner.set(owner, (this.#byOwner.get(owner) ?? new Set()).add(key));
    void this.#secretEnv(job).then(
      (env) => this.#run(attempt, env),
      (err: unknown) =>
        this.#finish(attempt, {
          phase: 'failed',
          error: { type: 'SecretNotFound', message: err instanceof Error ? err.message : String(err) },
        }),
    );
  }

  /**
   * Runs the attempt's workers: one, or for a split attempt its parts in index order, `parallelism` at a time.
   * Either way each worker's messages become a part's report, and the attempt's state is their combination.
   */
  #run(attempt: Attempt, env: Record<string, string>): void {
    const { parts } = attempt.job;
    const { count, parallelism } = parts ?? { count: 1, parallelism: 1 };
    const reports = new Map<number, PartReport>();
    let next = 0;
    const launch = () => {
      while (!attempt.cancelRequested && attempt.state.phase === 'running' && next < count) {
        // Parts that reported their end count as done, though their processes may still be exiting.
        const ended = [...reports.values()].filter((report) => report.end).length;
        if (next - ended >= parallelism) return;
        const index = next++;
        this.#fork(attempt, env, parts && { index, count }, (message) => {
          const previous = reports.get(index) ?? { job: attempt.job.name, at: '', count };
          const at = this.#now().toISOString();
          reports.set(
            index,
            message.type === 'progress'
              ? { ...previous, at, progress: { done: message.done, total: message.total, message: message.message } }
              : { ...previous, at, end: message },
          );
          const combined = combinedReport(attempt.job.name, reports)!;
          if (combined.progress) attempt.state.progress = combined.progress;
          if (combined.end) {
            this.#finish(attempt, endedState(combined.end));
            // A failed or cancelled part ends the attempt: the others stop, as the Job controller stops them.
            for (const child of attempt.children) this.#cancel(child);
          } else {
            if (message.type !== 'progress') launch();
            this.#emit(attempt);
          }
        });
      }
    };
    launch();
    this.#emit(attempt);
  }

  /**
   * Forks a worker for the attempt (or one part of it) and hands its messages to `onMessage`; an exit before the
   * worker reported its end is reported as its end.
   */
  #fork(
    attempt: Attempt,
    env: Record<string, string>,
    part: Part | undefined,
    onMessage: (message: FromWorker) => void,
  ): void {
    const partEnv = part && { [PART_INDEX_ENV]: String(part.index), [PART_COUNT_ENV]: String(part.count) };
    const child = fork(WORKER, [], {
      execArgv: [...process.execArgv, ...WORKER_NODE_FLAGS],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      serialization: 'json',
      env: { ...process.env, ...env, ...partEnv, ...workerLogEnv(this.#logging, runContextOf(attempt.job)) },
    });
    attempt.children.add(child);
    let ended = false;
    const deliver = (message: FromWorker) => {
      if (ended) return;
      if (message.type !== 'progress') ended = true;
      onMessage(message);
    };
    const crashed = (message: string) => deliver({ type: 'error', errorType: 'WorkerCrashed', message });
    child.on('message', deliver);
    // 'close', not 'exit': 'exit' can come before the last messages of the IPC channel are read, and a worker that
    // reported its end and exited at once would count as crashed; 'close' comes once the channel is drained.
    child.on('close', (code, signal) => {
      attempt.children.delete(child);
      crashed(`the worker process ended with ${signal ? `signal ${signal}` : `exit code ${code}`}`);
    });
    child.on('error', (err) => crashed(err.message));
    const { task, input } = attempt.job;
    child.send({ type: 'start', task, input } satisfies ToWorker);
  }

  #finish(attempt: Attempt, update: Partial<JobState>): void {
    if (attempt.state.phase !== 'running') return;
    Object.assign(attempt.state, update, { finishedAt: this.#now().toISOString() });
    this.#emit(attempt);
    if (attempt.orphaned) this.#forget(attempt.job);
  }

  forgetOwner(owner: JobSpec['owner']): void {
    for (const key of this.#byOwner.get(ownerKey(owner)) ?? []) {
      const attempt = this.#attempts.get(key)!;
      // A running attempt is still the runner's to report and to stop; it goes once it ended.
      if (attempt.state.phase === 'running') attempt.orphaned = true;
      else this.#forget(attempt.job);
    }
  }

  #forget(job: JobSpec): void {
    this.#attempts.delete(attemptKey(job.name, job.owner.namespace));
    const owner = ownerKey(job.owner);
    const keys = this.#byOwner.get(owner);
    keys?.delete(attemptKey(job.name, job.owner.namespace));
    if (keys?.size === 0) this.#byOwner.delete(owner);
  }

  cancel(name: string, namespace: string | undefined): void {
    const attempt = this.#attempts.get(attemptKey(name, namespace));
    if (!attempt) return;
    attempt.cancelRequested = true;
    for (const child of attempt.children) this.#cancel(child);
  }

  #cancel(child: ChildProcess): void {
    // Once per child: every later end of a sibling part cancels the remaining children again.
    if (child.exitCode !== null || child.signalCode !== null || this.#cancelled.has(child)) return;
    this.#cancelled.add(child);
    child.send({ type: 'cancel' } satisfies ToWorker);
    const timer = setTimeout(() => child.kill('SIGKILL'), this.#grace);
    timer.unref();
    child.once('exit', () => clearTimeout(timer));
  }

  #emit({ job, state }: Attempt): void {
    for (const listener of this.#listeners) listener(job, structuredClone(state));
  }

  async stop(): Promise<void> {
    const children = [...this.#attempts.values()].flatMap((attempt) => [...attempt.children]);
    const exits = children.map(
      (child) =>
        new Promise<void>((resolve) => {
          child.once('exit', () => resolve());
          this.#cancel(child);
        }),
    );
    await Promise.all(exits);
  }
}
