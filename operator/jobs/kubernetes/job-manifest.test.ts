import { describe, expect, it } from 'vitest';
import { ingestionKind } from '../../../core/resources/ingestion/schema.ts';
import { parseInstanceConfig } from '../../../core/config/index.ts';
import { logSettings, RUN_CONTEXT_ENV, WORKER_LOGGING_ENV } from '../../../core/logging/settings.ts';
import { REPORT_TO_ENV } from '../../worker/protocol.ts';
import type { JobSpec } from '../runner.ts';
import {
  type BatchJob,
  inputBytes,
  MAX_INPUT_BYTES,
  workerJobFor,
  workerJobName,
  workerLogSettings,
  WORKER_SELECTOR,
} from './job-manifest.ts';
import { matchesLabels, parseLabelSelector } from '../../../core/cluster/label-selector.ts';

const spec: JobSpec = {
  name: 'run-1-a2',
  task: 'ingestion',
  input: { source: 'sample', storageRoot: '/store' },
  owner: { kind: ingestionKind, name: 'run-1', namespace: 'climate' },
  env: [{ name: 'PROVIDER_TOKEN', secretKeyRef: { name: 'creds', key: 'token' } }],
};
const owner = {
  apiVersion: ingestionKind.apiVersion,
  kind: 'Ingestion',
  name: 'run-1',
  uid: 'u-1',
  controller: true,
  blockOwnerDeletion: true,
};
const options = { namespace: 'climate', image: 'stratus:dev', store: { claimName: 'store', mountPath: '/store' } };
const job = workerJobFor(spec, 'u-1', options);
interface WorkerPod {
  restartPolicy: string;
  securityContext: unknown;
  volumes: unknown[];
  containers: {
    command: string[];
    env: unknown[];
    resources: unknown;
    securityContext: unknown;
    volumeMounts: unknown[];
  }[];
}
const podOf = (j: BatchJob) => (j.spec as { template: { spec: WorkerPod } }).template.spec;
const podSpec = podOf(job);
const container = podSpec.containers[0];

describe('the Job of one attempt', () => {
  it('is named after the attempt and owned by its run when it runs in the run namespace', () => {
    expect(job.metadata).toMatchObject({ name: 'run-1-a2', namespace: 'climate', ownerReferences: [owner] });
  });

  it('runs in the store namespace, without an owner reference, for a run of another namespace', () => {
    const elsewhere = workerJobFor({ ...spec, env: undefined }, 'u-1', { ...options, namespace: 'stratus' });
    expect(elsewhere.metadata.namespace).toBe('stratus');
    // Named apart from the attempt of the same name of a run in any other namespace.
    expect(elsewhere.metadata.name).toBe(workerJobName('run-1-a2', 'climate', 'stratus'));
    expect(elsewhere.metadata.name).toMatch(/^run-1-a2-ns[0-9a-f]{6}$/);
    expect(workerJobName('run-1-a2', 'other', 'stratus')).not.toBe(elsewhere.metadata.name);
    expect(elsewhere.metadata.annotations).toEqual({ 'climate.stratus.dev/attempt': 'run-1-a2' });
    expect(elsewhere.metadata.ownerReferences).toBeUndefined();
    const reportTo = podOf(elsewhere).containers[0].env[0] as { value: string };
    expect(JSON.parse(reportTo.value)).toMatchObject({ name: 'run-1', namespace: 'climate' });
  });

  it('leaves retries to the planner and bounds its run time and its life after it ends', () => {
    expect(job.spec).toMatchObject({ backoffLimit: 0, activeDeadlineSeconds: 21_600, ttlSecondsAfterFinished: 3600 });
    expect(podSpec.restartPolicy).toBe('Never');
  });

  it('runs the worker with the task and the input as JSON', () => {
    expect(container.command).toEqual([
      'node',
      '--initial-old-space-size=128',
      'operator/worker/main.ts',
      '--task',
      'ingestion',
      '--input',
      JSON.stringify(spec.input),
    ]);
  });

  it('takes credentials from Secret keys and tells the worker where to report and which run it does', () => {
    expect(container.env).toEqual([
      {
        name: REPORT_TO_ENV,
        value: JSON.stringify({ kind: ingestionKind, name: 'run-1', namespace: 'climate', job: 'run-1-a2' }),
      },
      {
        name: RUN_CONTEXT_ENV,
        value: JSON.stringify({ run: 'climate/run-1', job: 'run-1-a2', xRequestID: '', sessionId: '' }),
      },
      { name: 'PROVIDER_TOKEN', valueFrom: { secretKeyRef: { name: 'creds', key: 'token' } } },
    ]);
  });

  it('tells the worker how to log and the request its run came from', () => {
    const logging = workerLogSettings(
      logSettings(parseInstanceConfig('logging.file.max_archives = 3', 'f'), { home: '/store' }),
      '/store',
    );
    const traced = workerJobFor(
      { ...spec, env: undefined, context: { xRequestID: 'req9', sessionId: 'a'.repeat(32) } },
      'u-1',
      { ...options, logging },
    );
    const env = podOf(traced).containers[0].env as { name: string; value: string }[];
    expect(env.map((e) => e.name)).toEqual([REPORT_TO_ENV, WORKER_LOGGING_ENV, RUN_CONTEXT_ENV]);
    expect(JSON.parse(env[1]!.value)).toEqual({ ...logging, home: '/store' });
    expect(JSON.parse(env[2]!.value)).toMatchObject({ xRequestID: 'req9', sessionId: 'a'.repeat(32) });
  });

  it.each([
    ['/var/lib/stratus', '/var/lib/stratus', '/var/lib/stratus'],
    ['/var/lib/stratus', '/var/lib', '/var/lib/stratus'],
    ['/var/lib/stratus', '/data', undefined],
    [undefined, '/data', undefined],
  ])('gives a worker the home %j when the store is mounted at %j: %j', (home, mountPath, want) => {
    const operator = logSettings(parseInstanceConfig('', 'f'), { home, stdout: false });
    expect(workerLogSettings(operator, mountPath)).toEqual({ ...operator, home: want, stdout: true });
  });

  it('is an Indexed Job of one completion per part for a split attempt, each pod told its index and the count', () => {
    const split = workerJobFor({ ...spec, parts: { count: 5, parallelism: 3 } }, 'u-1', options);
    expect(split.spec).toMatchObject({ completionMode: 'Indexed', completions: 5, parallelism: 3, backoffLimit: 0 });
    expect(podOf(split).containers[0].env).toEqual([
      container.env[0],
      container.env[1],
      {
        name: 'JOB_COMPLETION_INDEX',
        valueFrom: { fieldRef: { fieldPath: "metadata.annotations['batch.kubernetes.io/job-completion-index']" } },
      },
      { name: 'STRATUS_WORKER_PARTS', value: '5' },
      container.env[2],
    ]);
    // An attempt in one part is a plain Job: one pod, one completion.
    expect(job.spec).not.toHaveProperty('completionMode');
    expect(job.spec).not.toHaveProperty('completions');
  });

  it('mounts the store claim at the storage root and a writable /tmp under a read-only root filesystem', () => {
    expect(container.volumeMounts).toEqual([
      { name: 'store', mountPath: '/store' },
      { name: 'tmp', mountPath: '/tmp' },
    ]);
    expect(podSpec.volumes[0]).toEqual({ name: 'store', persistentVolumeClaim: { claimName: 'store' } });
  });

  it('meets the restricted Pod Security Standard', () => {
    // The image's user and group by number, and the volume's group: a real kubelet with containerd otherwise runs
    // the image's user with group 0, which cannot write the store the chart's pods made.
    expect(podSpec.securityContext).toEqual({
      runAsNonRoot: true,
      runAsUser: 65532,
      runAsGroup: 65532,
      fsGroup: 65532,
      seccompProfile: { type: 'RuntimeDefault' },
    });
    expect(container.securityContext).toEqual({
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      capabilities: { drop: ['ALL'] },
    });
  });

  it('runs the Pods with the security context the operator is given (the chart gives its own pods’)', () => {
    const podSecurityContext = { runAsNonRoot: true, runAsUser: 1000, runAsGroup: 1000, fsGroup: 2000 };
    expect(podOf(workerJobFor(spec, 'u-1', { ...options, podSecurityContext })).securityContext).toEqual(
      podSecurityContext,
    );
  });

  it('has default resources unless given, and labels that the runner selects and that name its run', () => {
    expect(container.resources).toEqual({ requests: { cpu: '250m', memory: '512Mi' }, limits: { memory: '2Gi' } });
    const sized = workerJobFor(spec, 'u-1', { ...options, resources: { requests: { cpu: '2' } } });
    expect(podOf(sized).containers[0].resources).toEqual({ requests: { cpu: '2' } });
    expect(matchesLabels(parseLabelSelector(WORKER_SELECTOR), job.metadata.labels)).toBe(true);
    expect(job.metadata.labels).toMatchObject({
      'climate.stratus.dev/run': 'run-1',
      'climate.stratus.dev/run-kind': 'Ingestion',
      'climate.stratus.dev/run-namespace': 'climate',
      'climate.stratus.dev/run-uid': 'u-1',
    });
  });

  it('keeps the name of a Job of a long attempt name within a label value', () => {
    const long = 'x'.repeat(61) + '-a1';
    expect(workerJobName(long, 'climate', 'stratus')).toHaveLength(63);
    expect(workerJobName(long, 'climate', 'stratus')).not.toBe(workerJobName(`${long}0`, 'climate', 'stratus'));
  });

  it('measures the input argument in bytes, against the bound exec allows', () => {
    expect(inputBytes({ ...spec, input: 'é' })).toBe(4);
    expect(inputBytes({ ...spec, input: 'x'.repeat(MAX_INPUT_BYTES) })).toBeGreaterThan(MAX_INPUT_BYTES);
  });
});
