import type { KindRef } from '../../core/cluster/objects.ts';
import type { LogContext } from '../../core/logging/context.ts';
import type { RunContext } from '../../core/logging/settings.ts';
import type { RunErrorRecord } from '../../core/runs/errors.ts';

export interface JobProgress {
  done: number;
  total: number;
  message?: string;
}

export interface JobState {
  name: string;
  phase: 'running' | 'succeeded' | 'failed' | 'cancelled';
  startedAt: string;
  finishedAt?: string;
  progress?: JobProgress;
  result?: unknown;
  error?: RunErrorRecord;
}

export interface JobSpec {
  /**
   * Unique per attempt within the run's namespace, e.g. `<run>-a<attempt>`: starting the same name twice starts it
   * once. Runs of two namespaces may share a name, so an attempt is known by its run's namespace and its name.
   */
  name: string;
  task: string;
  input: unknown;
  owner: { kind: KindRef; name: string; namespace?: string };
  /**
   * Environment variables from Secret keys in the owner's namespace: how credentials reach a worker without
   * appearing in its input (a Job gets `valueFrom.secretKeyRef`; the embedded runner resolves them itself).
   */
  env?: { name: string; secretKeyRef: { name: string; key: string } }[];
  /**
   * A split attempt: `count` workers, each told its index (`PART_INDEX_ENV`) and the count, at most `parallelism` at
   * once; an Indexed Job on Kubernetes. The attempt fails as soon as one part fails, and succeeds once all did.
   */
  parts?: { count: number; parallelism: number };
  /** The log context of the request that started the run, which the worker's lines carry. */
  context?: LogContext;
}

/** Runs worker attempts for the controllers: child processes in embedded mode, batch/v1 Jobs on Kubernetes. */
export interface JobRunner {
  start(job: JobSpec): void;
  /** The attempt `name` of a run in `namespace`. */
  get(name: string, namespace: string | undefined): JobState | undefined;
  /** Asks the attempt to stop between units of work; it is killed after a grace period if it does not. */
  cancel(name: string, namespace: string | undefined): void;
  /**
   * The run `owner` is gone: forget its attempts (those still running once they end). The controllers say so when
   * they find a run deleted; a runner that watches the runs itself (the Kubernetes one) needs not be told.
   */
  forgetOwner?(owner: JobSpec['owner']): void;
  /** Called whenever an attempt changes state or reports progress, with its owner. */
  onChange(listener: (job: JobSpec, state: JobState) => void): void;
  stop(): Promise<void>;
}

/** What a worker's lines say of its run: the run, the attempt, and the request that started the run. */
export function runContextOf(job: JobSpec): RunContext {
  return {
    run: `${job.owner.namespace ?? ''}/${job.owner.name}`,
    job: job.name,
    xRequestID: job.context?.xRequestID ?? '',
    sessionId: job.context?.sessionId ?? '',
  };
}

/** How runners key attempts: the run's namespace and the attempt's name. */
export function attemptKey(name: string, namespace: string | undefined): string {
  return `${namespace ?? ''}/${name}`;
}
