import { createHash } from 'node:crypto';
import { isAbsolute, join, relative } from 'node:path';
import type { KubeObject, OwnerReference } from '../../../core/cluster/objects.ts';
import { workerLogEnv, type LogSettings } from '../../../core/logging/settings.ts';
import { PART_COUNT_ENV, PART_INDEX_ENV, REPORT_TO_ENV, type ReportTarget } from '../../worker/protocol.ts';
import { WORKER_NODE_FLAGS } from '../../worker/node-flags.ts';
import { runContextOf, type JobSpec } from '../runner.ts';

/**
 * Linux refuses a single exec argument over 128 KiB (MAX_ARG_STRLEN). Inputs are descriptors of work (a source, a
 * range, a target path), a few kilobytes; one that is larger is refused rather than spilled into another object.
 */
export const MAX_INPUT_BYTES = 100_000;

export const LABELS = {
  component: 'app.kubernetes.io/component',
  managedBy: 'app.kubernetes.io/managed-by',
  run: 'climate.stratus.dev/run',
  /** The run's kind, namespace and uid: a Job in another namespace than its run has no owner reference to say so. */
  runKind: 'climate.stratus.dev/run-kind',
  runNamespace: 'climate.stratus.dev/run-namespace',
  runUid: 'climate.stratus.dev/run-uid',
  task: 'climate.stratus.dev/task',
} as const;

/** The attempt's name, where the Job's own name cannot be it (a run of another namespace). */
export const ATTEMPT_ANNOTATION = 'climate.stratus.dev/attempt';

/** Every Job this runner makes carries these; its watch selects on them. */
export const WORKER_SELECTOR = `${LABELS.component}=worker,${LABELS.managedBy}=stratus-operator`;

export interface WorkerJobOptions {
  /**
   * Where every Job runs: the namespace of the store claim, since a pod mounts claims of its own namespace only
   * (docs/adr/0004-worker-jobs-run-in-the-store-namespace.md).
   */
  namespace: string;
  image: string;
  imagePullPolicy?: 'Always' | 'IfNotPresent' | 'Never';
  /** How the image starts the worker; `--task` and `--input` follow. */
  command?: string[];
  /** The store volume: the claim and where it is mounted, which must be the operator's storage root. */
  store: { claimName: string; mountPath: string };
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  activeDeadlineSeconds?: number;
  ttlSecondsAfterFinished?: number;
  /** How long a cancelled worker has between SIGTERM and SIGKILL to report and stop. */
  terminationGracePeriodSeconds?: number;
  /** The service account that may patch the status of runs (the worker's only write). */
  serviceAccountName?: string;
  /** The Pods' security context: the chart gives its own pods', so that workers write the store as they do. */
  podSecurityContext?: WorkerPodSecurityContext;
  /**
   * How the workers log: the operator's settings, with a home only where the worker's logs directory lies on the
   * store volume (`workerLogSettings`); without them a worker does not log.
   */
  logging?: LogSettings;
}

export interface WorkerPodSecurityContext {
  runAsNonRoot?: boolean;
  runAsUser?: number;
  runAsGroup?: number;
  fsGroup?: number;
  supplementalGroups?: number[];
  seccompProfile?: { type: string; localhostProfile?: string };
}

/**
 * The image's user (the Dockerfile's `USER 65532:65532`) named explicitly: containerd's CRI runs an image user that
 * only the image's configuration gives with group 0, which may not write a store whose files belong to the chart's
 * `fsGroup`; and `fsGroup` makes the kubelet give the volume that group.
 */
export const WORKER_POD_SECURITY_CONTEXT: WorkerPodSecurityContext = {
  runAsNonRoot: true,
  runAsUser: 65532,
  runAsGroup: 65532,
  fsGroup: 65532,
  seccompProfile: { type: 'RuntimeDefault' },
};

export const workerJobDefaults = {
  command: ['node', ...WORKER_NODE_FLAGS, 'operator/worker/main.ts'],
  resources: { requests: { cpu: '250m', memory: '512Mi' }, limits: { memory: '2Gi' } },
  activeDeadlineSeconds: 6 * 3600,
  ttlSecondsAfterFinished: 3600,
  terminationGracePeriodSeconds: 30,
} satisfies Partial<WorkerJobOptions>;

export type BatchJob = KubeObject<Record<string, unknown>, BatchJobStatus>;

export interface BatchJobStatus {
  startTime?: string;
  completionTime?: string;
  active?: number;
  succeeded?: number;
  failed?: number;
  conditions?: { type: string; status: string; reason?: string; message?: string; lastTransitionTime?: string }[];
}

/**
 * The Job's name: the attempt's for a run of the Jobs' namespace; for a run elsewhere, whose attempt may share its
 * name with one of another namespace, the attempt's (cut to fit) and a hash of the run's namespace and the attempt.
 * The Job controller puts the name in a pod label, so it stays within 63 characters.
 */
export function workerJobName(attempt: string, runNamespace: string | undefined, jobNamespace: string): string {
  if (runNamespace === jobNamespace) return attempt;
  const hash = createHash('sha256')
    .update(`${runNamespace ?? ''}/${attempt}`)
    .digest('hex')
    .slice(0, 6);
  return `${attempt.slice(0, 54)}-ns${hash}`;
}

/** The annotation by which the Job controller gives each pod of an Indexed Job its index. */
export const COMPLETION_INDEX_ANNOTATION = 'batch.kubernetes.io/job-completion-index';

/**
 * What makes a split attempt's Job an Indexed Job: one completion per part, `parallelism` pods at a time. Each pod
 * learns its index from its annotation (the Job controller of 1.22 and later sets the same variable; it is
 * declared here for 1.21) and the number of parts from the environment.
 */
function indexedSpec(parts: NonNullable<JobSpec['parts']>) {
  return {
    spec: { completionMode: 'Indexed', completions: parts.count, parallelism: parts.parallelism },
    env: [
      {
        name: PART_INDEX_ENV,
        valueFrom: { fieldRef: { fieldPath: `metadata.annotations['${COMPLETION_INDEX_ANNOTATION}']` } },
      },
      { name: PART_COUNT_ENV, value: String(parts.count) },
    ],
  };
}

/**
 * The batch/v1 Job of one attempt: one pod, or for a split attempt an Indexed Job of one pod per part, never
 * retried by Kubernetes (retries belong to the planner: a failed part fails the attempt). It runs in the options'
 * namespace; only there can the run own it (owner references never cross namespaces), and elsewhere the runner
 * deletes it when the run goes.
 */
export function workerJobFor(job: JobSpec, runUid: string, options: WorkerJobOptions): BatchJob {
  const { kind, name: run, namespace: runNamespace } = job.owner;
  const labels = {
    [LABELS.component]: 'worker',
    [LABELS.managedBy]: 'stratus-operator',
    [LABELS.run]: run,
    [LABELS.runKind]: kind.kind,
    ...(runNamespace && { [LABELS.runNamespace]: runNamespace }),
    [LABELS.runUid]: runUid,
    [LABELS.task]: job.task,
  };
  const reportTo: ReportTarget = { kind, name: run, namespace: runNamespace, job: job.name };
  const owner: OwnerReference = {
    apiVersion: kind.apiVersion,
    kind: kind.kind,
    name: run,
    uid: runUid,
    controller: true,
    blockOwnerDeletion: true,
  };
  const ownedByRun = runNamespace === options.namespace;
  const indexed = job.parts && indexedSpec(job.parts);
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: {
      name: workerJobName(job.name, runNamespace, options.namespace),
      namespace: options.namespace,
      labels,
      annotations: { [ATTEMPT_ANNOTATION]: job.name },
      ...(ownedByRun && { ownerReferences: [owner] }),
    },
    spec: {
      ...indexed?.spec,
      backoffLimit: 0,
      activeDeadlineSeconds: options.activeDeadlineSeconds ?? workerJobDefaults.activeDeadlineSeconds,
      ttlSecondsAfterFinished: options.ttlSecondsAfterFinished ?? workerJobDefaults.ttlSecondsAfterFinished,
      template: {
        metadata: { labels },
        spec: {
          restartPolicy: 'Never',
          serviceAccountName: options.serviceAccountName,
          terminationGracePeriodSeconds:
            options.terminationGracePeriodSeconds ?? workerJobDefaults.terminationGracePeriodSeconds,
          securityContext: options.podSecurityContext ?? WORKER_POD_SECURITY_CONTEXT,
          containers: [
            {
              name: 'worker',
              image: options.image,
              imagePullPolicy: options.imagePullPolicy,
              command: [
                ...(options.command ?? workerJobDefaults.command),
                '--task',
                job.task,
                '--input',
                JSON.stringify(job.input ?? null),
              ],
              env: [
                { name: REPORT_TO_ENV, value: JSON.stringify(reportTo) },
                ...Object.entries(workerLogEnv(options.logging, runContextOf(job))).map(([name, value]) => ({
                  name,
                  value,
                })),
                ...(indexed?.env ?? []),
                ...(job.env ?? []).map(({ name, secretKeyRef }) => ({ name, valueFrom: { secretKeyRef } })),
              ],
              resources: options.resources ?? workerJobDefaults.resources,
              securityContext: {
                allowPrivilegeEscalation: false,
                readOnlyRootFilesystem: true,
                capabilities: { drop: ['ALL'] },
              },
              volumeMounts: [
                { name: 'store', mountPath: options.store.mountPath },
                { name: 'tmp', mountPath: '/tmp' },
              ],
            },
          ],
          volumes: [
            { name: 'store', persistentVolumeClaim: { claimName: options.store.claimName } },
            { name: 'tmp', emptyDir: {} },
          ],
        },
      },
    },
  };
}

/**
 * The log settings of a worker Job from the operator's: the same files, when `<home>/logs` lies on the store
 * volume the Job mounts (the chart's layout: STRATUS_HOME is the store's mount path); else none, since anywhere
 * else the worker's root file system is read-only and its files would be lost with the pod. Either way it logs
 * to standard output, for the cluster's log pipeline.
 */
export function workerLogSettings(operator: LogSettings, storeMountPath: string): LogSettings {
  const { home, ...rest } = operator;
  const logs = home === undefined ? undefined : relative(storeMountPath, join(home, 'logs'));
  const onStore = logs !== undefined && logs !== '' && !logs.startsWith('..') && !isAbsolute(logs);
  return { ...rest, stdout: true, ...(onStore && { home }) };
}

/** The input argument's size in bytes, to refuse one that exec would refuse. */
export function inputBytes(job: JobSpec): number {
  return Buffer.byteLength(JSON.stringify(job.input ?? null));
}
