import type { KubeObject } from '../../../core/cluster/objects.ts';

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
