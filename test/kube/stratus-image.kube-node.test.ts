/**
 * Stratus's own image on the test node: built offline with buildah (scripts/build-image-offline.sh, as `make image`
 * builds it without a Docker engine), exported as an OCI archive and imported into the node's containerd, then run
 * as Pods with `imagePullPolicy: Never`: its command line answers, and Stratus's Kubernetes adapter in a Pod
 * connects through the in-cluster config (service account token, the cluster's CA verifying the API server's
 * certificate for the `kubernetes` Service's address) and lists Pods.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { openKubernetesCluster } from '../../core/cluster/kubernetes/index.ts';
import { scratchNamespace } from '../support/kube-namespace.ts';
import { importStratusImage, nodeClient, nodeContainer, removeStratusImage } from '../support/kube-node-client.ts';

const image = 'localhost/stratus:kube-node-test';

const kubeconfig = inject('kubeconfig');
const clusterDir = inject('kubeClusterDir');
const namespace = scratchNamespace(openKubernetesCluster({ kubeconfig }), 'stratus-image');
const { completedJob, allowPodList } = nodeClient(kubeconfig, namespace);

const container = nodeContainer(image, { request: '64Mi', limit: '512Mi' });

describe("Stratus's image on the node", () => {
  beforeAll(() => importStratusImage(clusterDir, image), 900_000);
  afterAll(() => removeStratusImage(image));

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
