/**
 * kubectl against the test node's cluster for the `kube-node` test files: commands in one namespace, manifests
 * applied from objects, and a Job run to completion for its log; images imported into the node, and the
 * container those tests run them in.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { runTool } from '../../scripts/kube-cli.ts';

const run = promisify(execFile);
const kubeNodeScript = join(import.meta.dirname, '../../scripts/kube-node.sh');

export interface NodeClient {
  /** Runs kubectl in the namespace; its stdout, or an error naming the command and its stderr. */
  kubectl(...args: string[]): Promise<string>;
  apply(manifest: object): Promise<void>;
  /** Applies a Job of one container, waits up to 90 s until it completes, and gives its Pod's name and log. */
  completedJob(name: string, container: object): Promise<{ podName: string; log: string }>;
  /** Lets the namespace's default ServiceAccount (every Pod's unless it names another) list its Pods. */
  allowPodList(): Promise<void>;
}

/** Logs how long a step took (the test node's figures in docs/kubernetes.md come from these lines). */
export async function timed<T>(step: string, work: () => Promise<T>): Promise<T> {
  const started = Date.now();
  const value = await work();
  console.log(`${step}: ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return value;
}

export function nodeClient(kubeconfig: string, namespace: string): NodeClient {
  async function kubectl(...args: string[]): Promise<string> {
    const result = await runTool('kubectl', ['--kubeconfig', kubeconfig, '-n', namespace, ...args]);
    if (result.code !== 0) throw new Error(`kubectl ${args.join(' ')}: ${result.stderr}`);
    return result.stdout;
  }

  async function apply(manifest: object): Promise<void> {
    const result = await runTool(
      'kubectl',
      ['--kubeconfig', kubeconfig, '-n', namespace, 'apply', '-f', '-'],
      JSON.stringify(manifest),
    );
    if (result.code !== 0) throw new Error(`kubectl apply: ${result.stderr}`);
  }

  async function completedJob(name: string, container: object): Promise<{ podName: string; log: string }> {
    await apply({
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name },
      spec: { backoffLimit: 0, template: { spec: { restartPolicy: 'Never', containers: [container] } } },
    });
    await timed(`Job ${name} completed`, () =>
      kubectl('wait', '--for=condition=complete', '--timeout=90s', `job/${name}`),
    );
    const podName = (
      await kubectl('get', 'pods', '-l', `job-name=${name}`, '-o', 'jsonpath={.items[0].metadata.name}')
    ).trim();
    return { podName, log: await timed(`log of ${name} read`, () => kubectl('logs', podName)) };
  }

  async function allowPodList(): Promise<void> {
    await apply({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name: 'pod-reader' },
      rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['list'] }],
    });
    await apply({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: 'pod-reader' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'pod-reader' },
      subjects: [{ kind: 'ServiceAccount', name: 'default', namespace }],
    });
  }

  return { kubectl, apply, completedJob, allowPodList };
}

/**
 * Imports into the node of the cluster in CLUSTER_DIR the OCI image archive that `write` makes in a scratch
 * directory (it returns the archive's path); the directory goes afterwards.
 */
export async function importImage(clusterDir: string, write: (work: string) => Promise<string>): Promise<void> {
  const work = await mkdtemp(join(tmpdir(), 'stratus-node-image-'));
  try {
    const archive = await write(work);
    await run('bash', [kubeNodeScript, 'import', clusterDir, archive]);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/** Runs ctr against the containerd of the node in CLUSTER_DIR, in Kubernetes' namespace; its stdout. */
export async function nodeCtr(clusterDir: string, ...args: string[]): Promise<string> {
  return (await run('bash', [kubeNodeScript, 'ctr', clusterDir, ...args])).stdout;
}

/**
 * Builds Stratus's image as IMAGE from the working tree (scripts/build-image-offline.sh, minutes), exports it from
 * buildah's store (vfs, as the build uses) and imports it into the node; `removeStratusImage` drops buildah's copy
 * (hundreds of MB in vfs) while containerd keeps its own until the node stops.
 */
export async function importStratusImage(clusterDir: string, image: string): Promise<void> {
  const scripts = join(import.meta.dirname, '../../scripts');
  await timed('Stratus image built', () =>
    run('bash', [join(scripts, 'build-image-offline.sh'), image], {
      env: { ...process.env, STRATUS_IMAGE_NODE: process.execPath },
      maxBuffer: 64 * 1024 * 1024,
    }),
  );
  await timed('Stratus image exported and imported', () =>
    importImage(clusterDir, async (work) => {
      const archive = join(work, 'stratus.oci.tar');
      await run('buildah', ['--storage-driver', 'vfs', 'push', '-q', image, `oci-archive:${archive}:${image}`]);
      return archive;
    }),
  );
}

export async function removeStratusImage(image: string): Promise<void> {
  await run('buildah', ['--storage-driver', 'vfs', 'rmi', image]);
}

/** A container of an imported image: never pulled, no privilege escalation, the memory limit given. */
export function nodeContainer(image: string, memory: { request: string; limit: string }) {
  return {
    image,
    imagePullPolicy: 'Never',
    securityContext: { allowPrivilegeEscalation: false },
    resources: { requests: { cpu: '10m', memory: memory.request }, limits: { memory: memory.limit } },
  };
}
