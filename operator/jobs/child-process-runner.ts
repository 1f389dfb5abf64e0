import { fork, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import type { FromWorker, ToWorker } from '../worker/protocol.ts';
import { attemptKey, type JobRunner, type JobSpec, type JobState } from './runner.ts';

const WORKER = resolve(import.meta.dirname, '../worker/main.ts');

export interface ChildProcessRunnerOptions {
  /** How long a cancelled attempt may take to stop before it is killed. */
  cancelGraceMs?: number;
  now?: () => Date;
  /** Looks up one key of a Secret, for `JobSpec.env`; without it a job naming a Secret fails. */
  resolveSecret?: (namespace: string | undefined, name: string, key: string) => Promise<string | undefined>;
}

/** The embedded job runner: one forked worker process per attempt, the same code a Kubernetes Job runs. */
export class ChildProcessRunner implements JobRunner {
  readonly #states = new Map<string, JobState>();
  readonly #children = new Map<string, ChildProcess>();
  readonly #listeners: ((job: JobSpec, state: JobState) => void)[] = [];
  readonly #grace: number;
  readonly #now: () => Date;
  readonly #resolveSecret: ChildProcessRunnerOptions['resolveSecret'];

  constructor(options: ChildProcessRunnerOptions = {}) {
    this.#grace = options.cancelGraceMs ?? 10_000;
    this.#now = options.now ?? (() => new Date());
    this.#resolveSecret = options.resolveSecret;
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
    const state = this.#states.get(attemptKey(name, namespace));
    return state ? structuredClone(state) : undefined;
  }

  start(job: JobSpec): void {
    const key = attemptKey(job.name, job.owner.namespace);
    if (this.#states.has(key)) return;
    const state: JobState = { name: job.name, phase: 'running', startedAt: this.#now().toISOString() };
    this.#states.set(key, state);
    void this.#secretEnv(job).then(
      (env) => this.#fork(job, state, env),
      (err: unknown) => {
        Object.assign(state, {
          phase: 'failed',
          finishedAt: this.#now().toISOString(),
          error: { type: 'SecretNotFound', message: err instanceof Error ? err.message : String(err) },
        });
        this.#emit(job, state);
      },
    );
  }

  #fork(job: JobSpec, state: JobState, env: Record<string, string>): void {
    const child = fork(WORKER, [], {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      serialization: 'json',
      env: { ...process.env, ...env },
    });
    const key = attemptKey(job.name, job.owner.namespace);
    this.#children.set(key, child);
    const finish = (update: Partial<JobState>) => {
      if (state.phase !== 'running') return;
      Object.assign(state, update, { finishedAt: this.#now().toISOString() });
      this.#emit(job, state);
    };
    child.on('message', (message: FromWorker) => {
      if (message.type === 'progress') {
        state.progress = { done: message.done, total: message.total, message: message.message };
        this.#emit(job, state);
      } else if (message.type === 'result') finish({ phase: 'succeeded', result: message.value });
      else if (message.type === 'error')
        finish({ phase: 'failed', error: { type: message.errorType, message: message.message } });
      else if (message.type === 'cancelled') finish({ phase: 'cancelled' });
    });
    child.on('exit', (code, signal) => {
      this.#children.delete(key);
      const why = signal ? `signal ${signal}` : `exit code ${code}`;
      finish({ phase: 'failed', error: { type: 'WorkerCrashed', message: `the worker process ended with ${why}` } });
    });
    child.on('error', (err) => finish({ phase: 'failed', error: { type: 'WorkerCrashed', message: err.message } }));
    child.send({ type: 'start', task: job.task, input: job.input } satisfies ToWorker);
    this.#emit(job, state);
  }

  cancel(name: string, namespace: string | undefined): void {
    const child = this.#children.get(attemptKey(name, namespace));
    if (child) this.#cancel(child);
  }

  #cancel(child: ChildProcess): void {
    child.send({ type: 'cancel' } satisfies ToWorker);
    const timer = setTimeout(() => child.kill('SIGKILL'), this.#grace);
    timer.unref();
    child.once('exit', () => clearTimeout(timer));
  }

  #emit(job: JobSpec, state: JobState): void {
    for (const listener of this.#listeners) listener(job, structuredClone(state));
  }

  async stop(): Promise<void> {
    const exits = [...this.#children.values()].map(
      (child) =>
        new Promise<void>((resolve) => {
          child.once('exit', () => resolve());
          this.#cancel(child);
        }),
    );
    await Promise.all(exits);
  }
}
