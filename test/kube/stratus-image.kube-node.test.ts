/**
 * Stratus's own image on the test node: built offline with buildah (scripts/build-image-offline.sh, as `make image`
 * builds it without a Docker engine), exported as an OCI archive and imported into the node's containerd, then run
 * as Pods with `imagePullPolicy: Never`: its command line answers, and Stratus's Kubernetes adapter in a Pod
 * connects through the in-cluster config (service account token, the cluster's CA verifying the API server's
 * certificate for the `kubernetes` Service's address) and lists Pods.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { openKubernetesCluster } from '../../core/cluster/kubernetes/index.ts';
import { scratchNamespace } from '../support/kube-namespace.ts';
import { nodeClient, timed } from '../support/kube-node-client.ts';

const run = promisify(execFile);
const scripts = join(import.meta.dirname, '../../scripts');
const image = 'localhost/stratus:kube-node-test';

const kubeconfig = inject('kubeconfig');
const clusterDir = inject('kubeClusterDir');
const namespace = scratchNamespace(openKubernetesCluster({ kubeconfig }), 'stratus-image');
const { completedJob, allowPodList } = nodeClient(kubeconfig, namespace);

/** Builds the image (minutes), exports it from buildah's store (vfs, as the build uses) and imports it. */
async function importStratusImage(): Promise<void> {
  const work = await mkdtemp(join(tmpdir(), 'stratus-image-'));
  try {
    await timed('Stratus image built', () =>
      run('bash', [join(scripts, 'build-image-offline.sh'), image], {
        env: { ...process.env, STRATUS_IMAGE_NODE: process.execPath },
        maxBuffer: 64 * 1024 * 1024,
      }),
    );
    const archive = join(work, 'stratus.oci.tar');
    await timed('Stratus image exported and imported', async () => {
      await run('buildah', ['--storage-driver', 'vfs', 'push', '-q', image, `oci-archive:${archive}:${image}`]);
      await run('bash', [join(scripts, 'kube-node.sh'), 'import', clusterDir, archive]);
    });
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

const container = {
  image,
  imagePullPolicy: 'Never',
  securityContext: { allowPrivilegeEscalation: false },
  resources: { requests: { cpu: '10m', memory: '64Mi' }, limits: { memory: '512Mi' } },
};

describe("Stratus's image on the node", () => {
  beforeAll(importStratusImage, 900_000);

  it('runs its command line in a Pod to completion', async () => {
    const { log } = await completedJob('help', {
      ...container,
      name: 'help',
      command: ['node', 'cmd/stratus.ts', 'embedded', '--help'],
    });
    expect(log).toContain('Usage: node cmd/stratus.ts embedded [options]');
  });

  it("lists Pods from a Pod through Stratus's adapter and the in-cluster config", async () => {
    await allowPodList();
    const list = [
      "import { readFileSync } from 'node:fs';",
      "import { openKubernetesCluster } from '/app/core/cluster/kubernetes/index.ts';",
      "const namespace = readFileSync('/var/run/secrets/kubernetes.io/serviceaccount/namespace', 'utf8');",
      "const pods = { apiVersion: 'v1', kind: 'Pod', plural: 'pods', namespaced: true, statusSubresource: true };",
      'const { items } = await openKubernetesCluster().list(pods, { namespace });',
      'console.log(JSON.stringify(items.map((pod) => pod.metadata.name)));',
    ].join('\n');
    const { podName, log } = await completedJob('adapter', {
      ...container,
      name: 'adapter',
      command: ['node', '--input-type=module', '-e', list],
    });
    expect(JSON.parse(log)).toContain(podName);
  });
});
