/**
 * The test control plane has no kubelet: tests that need a worker pod's work play it. They run the container's
 * command here, with the container's environment, then set the pod's phase so that the Job controller sees it end.
 */
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { podKind } from '../../core/cluster/builtin-kinds.ts';
import type { KubeObject } from '../../core/cluster/objects.ts';
import type { Cluster } from '../../core/cluster/port.ts';
import { secretKind, secretValue, type Secret } from '../../core/resources/secret.ts';
import { eventually } from './eventually.ts';

const REPOSITORY = resolve(import.meta.dirname, '../..');

export interface PodTemplate {
  containers: {
    command: string[];
    env?: { name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string } } }[];
  }[];
}
export type Pod = KubeObject<PodTemplate, { phase?: string }>;

/** The pod the Job controller made for Job `job` (it stays Pending: nothing schedules or runs it). */
export function podOfJob(cluster: Cluster, namespace: string, job: string): Promise<Pod> {
  return eventually(async () => {
    const { items } = await cluster.list<Pod>(podKind, { namespace, labelSelector: `job-name=${job}` });
    return items[0];
  });
}

/**
 * Runs the worker container's command here, as a kubelet would in the pod, talking to the API server through
 * `kubeconfig`; resolves with its exit code. The command must be `node ...` (the worker image's entry point).
 * Variables from Secret keys are read from `secrets` (the pod's namespace), as the kubelet reads them.
 */
export async function runContainer(
  kubeconfig: string,
  template: PodTemplate,
  { kill, secrets }: { kill?: AbortSignal; secrets?: { cluster: Cluster; namespace: string } } = {},
): Promise<number> {
  const [container] = template.containers;
  const [program, ...args] = container!.command;
  if (program !== 'node') throw new Error(`the worker container runs ${program}, not node`);
  const env: Record<string, string> = {};
  for (const { name, value, valueFrom } of container!.env ?? []) {
    const ref = valueFrom?.secretKeyRef;
    if (!ref) env[name] = value ?? '';
    else {
      if (!secrets) throw new Error(`${name} comes from Secret ${ref.name}: pass the secrets to read it from`);
      const secret = await secrets.cluster.get<Secret>(secretKind, ref.name, secrets.namespace);
      const found = secret && secretValue(secret, ref.key);
      if (found === undefined) throw new Error(`Secret ${ref.name} has no key ${ref.key}: the pod would not start`);
      env[name] = found;
    }
  }
  const child = spawn(process.execPath, args, {
    cwd: REPOSITORY,
    env: { ...process.env, ...env, KUBECONFIG: kubeconfig },
    stdio: ['ignore', 'ignore', 'inherit'],
    // A node killed under the container: no grace, no last report.
    ...(kill && { signal: kill, killSignal: 'SIGKILL' as const }),
  });
  child.once('error', () => {});
  return new Promise((resolve) => child.once('exit', (code) => resolve(code ?? 1)));
}

/** Reports the pod's container as exited 0, which the Job controller turns into the Job's `Complete`. */
export async function markSucceeded(cluster: Cluster, pod: Pod): Promise<void> {
  await cluster.updateStatus<Pod>(podKind, { ...pod, status: { phase: 'Succeeded' } });
}

/** Reports the pod as failed (its container killed), which fails a Job whose `backoffLimit` is 0. */
export async function markFailed(cluster: Cluster, pod: Pod): Promise<void> {
  await cluster.updateStatus<Pod>(podKind, { ...pod, status: { phase: 'Failed' } });
}
