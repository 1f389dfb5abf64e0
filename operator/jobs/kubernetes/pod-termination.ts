import { podKind } from '../../../core/cluster/builtin-kinds.ts';
import type { KubeObject } from '../../../core/cluster/objects.ts';
import type { KubernetesJobRunnerOptions } from './runner-options.ts';

/** What the runner reads of a worker Job's pod: its containers' memory limits and how they ended. */
export type WorkerPod = KubeObject<
  { containers?: { name: string; resources?: { limits?: { memory?: string } } }[] },
  { containerStatuses?: { name: string; state?: { terminated?: { reason?: string } } }[] }
>;

/**
 * Why a worker that could not report its end was killed, when its pods tell: a container the kernel killed for
 * exceeding its memory limit (`OOMKilled`), named with the limit. The Job's own condition only says that the
 * backoff limit was reached.
 */
export function oomKilledMessage(pods: WorkerPod[]): string | undefined {
  for (const pod of pods) {
    for (const status of pod.status?.containerStatuses ?? []) {
      if (status.state?.terminated?.reason !== 'OOMKilled') continue;
      const limit = pod.spec?.containers?.find((c) => c.name === status.name)?.resources?.limits?.memory;
      return (
        `the worker pod ${pod.metadata.name} was OOMKilled: its container ${status.name} exceeded its memory limit` +
        (limit ? ` of ${limit}` : '')
      );
    }
  }
  return undefined;
}

/**
 * The ends of failed worker Jobs as their pods tell them. A Job that failed without its worker's report is held
 * back while its pods are read (`holds`), then heard again (`heard`), so that the first failed state the runner gives
 * names an OOM kill rather than only the backoff limit.
 */
export class PodEnds<Job extends { metadata: { name: string } }> {
  /** Failed Jobs whose pods are being read, by attempt key. */
  readonly #beingRead = new Map<string, Job>();
  /** What the pods of an attempt's failed Job said (undefined: nothing more than the Job), by attempt key. */
  readonly #ends = new Map<string, string | undefined>();
  readonly #read: (jobName: string) => Promise<WorkerPod[]>;
  readonly #heard: (job: Job) => void;
  readonly #onError: (err: unknown, key: string) => void;

  constructor(options: {
    read: (jobName: string) => Promise<WorkerPod[]>;
    heard: (job: Job) => void;
    onError: (err: unknown, key: string) => void;
  }) {
    this.#read = options.read;
    this.#heard = options.heard;
    this.#onError = options.onError;
  }

  of(key: string): string | undefined {
    return this.#ends.get(key);
  }

  /** Whether the failed `job` (without a report) is held back while its pods are read. */
  holds(key: string, job: Job, failedWithoutReport: boolean): boolean {
    if (!failedWithoutReport || this.#ends.has(key)) return false;
    const reading = this.#beingRead.has(key);
    this.#beingRead.set(key, job);
    if (!reading) void this.#readEnd(key, job.metadata.name);
    return true;
  }

  /** A Job deleted while its pods were read: its failure is heard as the Job said it. */
  release(key: string): Job | undefined {
    const job = this.#beingRead.get(key);
    this.#beingRead.delete(key);
    return job;
  }

  forget(key: string): void {
    this.#ends.delete(key);
  }

  async #readEnd(key: string, jobName: string): Promise<void> {
    let end: string | undefined;
    try {
      end = oomKilledMessage(await this.#read(jobName));
    } catch (err) {
      this.#onError(err, key);
    }
    this.#ends.set(key, end);
    const job = this.release(key);
    if (job) this.#heard(job);
  }
}

/** The pod ends of the runner's worker Jobs: their pods listed by the Job controller's `job-name` label. */
export function workerPodEnds<Job extends { metadata: { name: string } }>(
  { cluster, logger, job: { namespace } }: KubernetesJobRunnerOptions,
  heard: (job: Job) => void,
): PodEnds<Job> {
  return new PodEnds<Job>({
    read: async (jobName) =>
      (await cluster.list<WorkerPod>(podKind, { namespace, labelSelector: `job-name=${jobName}` })).items,
    heard,
    onError: (err, key) =>
      logger.warn({ err, job: key }, "reading the failed worker Job's pods failed; its failure is the Job's"),
  });
}
