/**
 * What the Kubernetes job runner knows of an attempt, and how it tells an attempt and its run from a Job's labels
 * and annotations: an attempt it started, one whose Job it found (started before a restart or by another leader),
 * or one known from its worker's report alone.
 */
import type { KindRef, KubeObject } from '../../../core/cluster/objects.ts';
import { attemptKey, type JobSpec } from '../runner.ts';
import { ATTEMPT_ANNOTATION, LABELS, type BatchJob } from './job-manifest.ts';

export interface Attempt {
  spec: JobSpec;
  requestedAt: string;
  cancelRequested: boolean;
  /** Known from its worker's report alone: the worker ran, so its Job existed. */
  fromReport?: boolean;
  /** The JSON of the state last handed to listeners: listeners hear of changes only. */
  emitted?: string;
}

/** The run a Job works for, from its labels. */
export interface RunOfJob {
  kind: KindRef;
  name: string;
  namespace: string | undefined;
  uid: string;
}

/** An attempt by its run's namespace and its name (`attemptKey`), from the spec that started it or from its Job. */
export const keyOfSpec = (spec: JobSpec) => attemptKey(spec.name, spec.owner.namespace);
export function keyOfJob(job: BatchJob): string {
  const { annotations, labels, name } = job.metadata;
  return attemptKey(annotations?.[ATTEMPT_ANNOTATION] ?? name, labels?.[LABELS.runNamespace]);
}

export function runOfJob(job: BatchJob, ownerKinds: KindRef[]): RunOfJob | undefined {
  const labels = job.metadata.labels ?? {};
  const kind = ownerKinds.find((k) => k.kind === labels[LABELS.runKind]);
  const name = labels[LABELS.run];
  const uid = labels[LABELS.runUid];
  if (!kind || !name || !uid) return undefined;
  return { kind, name, namespace: labels[LABELS.runNamespace], uid };
}

/** The attempt of a Job this runner did not start, from the Job and its run. */
export function adoptedAttempt(job: BatchJob, run: RunOfJob, now: Date): Attempt {
  return {
    spec: {
      name: job.metadata.annotations?.[ATTEMPT_ANNOTATION] ?? job.metadata.name,
      task: job.metadata.labels?.[LABELS.task] ?? '',
      input: undefined,
      owner: { kind: run.kind, name: run.name, namespace: run.namespace },
    },
    requestedAt: job.metadata.creationTimestamp ?? now.toISOString(),
    cancelRequested: false,
  };
}

/** The attempt `name` of a run that only its worker's report names, by the run (`owner`) of kind `kind`. */
export function reportedAttempt(name: string, kind: KindRef, owner: KubeObject, now: Date): Attempt {
  const { name: ownerName, namespace, creationTimestamp } = owner.metadata;
  return {
    spec: { name, task: '', input: undefined, owner: { kind, name: ownerName, namespace } },
    requestedAt: creationTimestamp ?? now.toISOString(),
    cancelRequested: false,
    fromReport: true,
  };
}
